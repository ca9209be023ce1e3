import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TestStore } from '../helpers/keys.js';

const run = promisify(execFile);

describe('scrapegate CLI', () => {
  const databaseUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'cli-')), 'cli.sqlite')}`;
  const cli = (...args: string[]) => run('node', ['scripts/scrapegate.js', ...args], { env: { ...process.env, DATABASE_URL: databaseUrl } });

  it('creates a key and prints it alone on the last line', async function () {
    this.timeout(20_000);
    const { stdout } = await cli('keys', 'create', '--plan', 'startup', '--credits', '1234', '--name', 'ci');
    const key = stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(key).to.match(/^sg_\S{32}$/);
    const store = await TestStore.open(databaseUrl);
    try {
      const record = await store.keys.findActive(key);
      expect(record).to.include({ planName: 'startup', creditsTotal: 1234, creditsRemaining: 1234, label: 'ci', maxConcurrency: null });
    } finally {
      await store.close();
    }
    const list = await cli('keys', 'list');
    expect(list.stdout).to.contain(key.slice(0, 10)).and.to.contain('startup').and.not.to.contain(key);
    const revoked = await cli('keys', 'revoke', key.slice(0, 10));
    expect(revoked.stdout).to.contain('Revoked');
    expect((await cli('keys', 'list')).stdout).to.contain('revoked');
  });

  it('lists plans and costs, and refuses an unknown plan with exit code 2', async function () {
    this.timeout(20_000);
    const { stdout } = await cli('plans', 'list');
    expect(stdout).to.match(/free\s+10000 credits\/month\s+concurrency 1/);
    expect(stdout).to.match(/browser\s+10\s+125/);
    const failed = await cli('keys', 'create', '--plan', 'platinum').catch((e: { code: number; stderr: string }) => e);
    expect(failed).to.include({ code: 2 });
    expect((failed as { stderr: string }).stderr).to.contain('--plan must be one of');
  });
});
