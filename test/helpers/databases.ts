import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestDatabase {
  name: string;
  /** A fresh database URL for one suite (SQLite: a new file; MySQL: the shared test database). */
  freshUrl(): string;
}

const sqlite: TestDatabase = {
  name: 'sqlite',
  freshUrl: () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'scrapegate-')), 'test.sqlite')}`,
};

/** SQLite always; MySQL too when TEST_MYSQL_URL names one (as .ci/run does). */
export function testDatabases(): TestDatabase[] {
  const mysqlUrl = process.env.TEST_MYSQL_URL;
  const out = [sqlite];
  if (mysqlUrl) out.push({ name: 'mysql', freshUrl: () => mysqlUrl });
  return out;
}
