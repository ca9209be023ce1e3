import { migrate, openDatabase, type Database } from '../../src/store/database.js';
import type { TestDatabase } from './databases.js';

/**
 * Registers mocha hooks that give the describe a database of its own (`database.isolated()`),
 * migrated, and closed and dropped after: for suites that read or count whole tables.
 */
export function useMigratedDatabase(database: TestDatabase): { readonly db: Database } {
  const holder = {} as { db: Database };
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    const isolated = await database.isolated();
    drop = isolated.drop;
    holder.db = openDatabase(isolated.url);
    await migrate(holder.db);
  });
  after(async () => {
    await holder.db?.close();
    await drop?.();
  });
  return holder;
}
