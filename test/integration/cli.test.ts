import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { hashApiKey } from '../../src/billing/billing.js';
import { SqlBillingStore } from '../../src/store/billing/sql-billing-store.js';
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
      const record = await store.keys.find(key);
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

  it('restricts a key to addresses and ranges: on create, replaced or lifted by set-ips, shown by list; a wrong entry is refused with exit code 2', async function () {
    this.timeout(30_000);
    const created = await cli('keys', 'create', '--plan', 'startup', '--allowed-ips', '127.0.0.2, 203.0.113.7/8,2001:DB8::/32');
    const key = created.stdout.trimEnd().split('\n').at(-1) ?? '';
    const prefix = key.slice(0, 10);
    expect(created.stdout).to.contain('ips 127.0.0.2/32,203.0.0.0/8,2001:db8::/32');
    const store = await TestStore.open(databaseUrl);
    try {
      expect((await store.keys.find(key))?.allowedIps).to.deep.equal(['127.0.0.2/32', '203.0.0.0/8', '2001:db8::/32']);
      const line = () => cli('keys', 'list').then(({ stdout }) => stdout.split('\n').find((l) => l.startsWith(prefix)) ?? '');
      expect(await line()).to.contain('ips 127.0.0.2/32,203.0.0.0/8,2001:db8::/32');
      expect((await cli('keys', 'set-ips', prefix, '::1')).stdout).to.contain('ips ::1/128');
      expect((await store.keys.find(key))?.allowedIps).to.deep.equal(['::1/128']);
      const wrong = await cli('keys', 'set-ips', key, '127.0.0.1, 127.0.0.300').catch((e: { code: number; stderr: string }) => e);
      expect(wrong).to.include({ code: 2 });
      expect((wrong as { stderr: string }).stderr).to.contain('"127.0.0.300" is not an IP address or CIDR range');
      expect((await store.keys.find(key))?.allowedIps, 'unchanged').to.deep.equal(['::1/128']);
      expect((await cli('keys', 'set-ips', key, '')).stdout).to.contain('ips anywhere');
      expect((await store.keys.find(key))?.allowedIps).to.deep.equal([]);
      expect(await line()).to.contain('ips anywhere');
      const count = (await store.keys.list()).length;
      const refused = await cli('keys', 'create', '--plan', 'startup', '--allowed-ips', 'office').catch((e: { code: number; stderr: string }) => e);
      expect(refused).to.include({ code: 2 });
      expect((refused as { stderr: string }).stderr).to.contain('"office" is not an IP address or CIDR range');
      expect((await store.keys.list()).length, 'no key created').to.equal(count);
      const missing = await cli('keys', 'set-ips', key).catch((e: { code: number; stderr: string }) => e);
      expect(missing).to.include({ code: 2 });
      expect((missing as { stderr: string }).stderr).to.contain('keys set-ips needs');
      const nobody = await cli('keys', 'set-ips', 'sg_nobody', '127.0.0.1').catch((e: { code: number; stderr: string }) => e);
      expect(nobody).to.include({ code: 2 });
    } finally {
      await store.close();
    }
  });

  it('lists plans and costs, and refuses an unknown plan with exit code 2', async function () {
    this.timeout(20_000);
    const { stdout } = await cli('plans', 'list');
    expect(stdout).to.match(/free\s+10000 credits\/month\s+concurrency 1/);
    expect(stdout).to.match(/browser\s+10\s+125/);
    const failed = await cli('keys', 'create', '--plan', 'platinum').catch((e: { code: number; stderr: string }) => e);
    expect(failed).to.include({ code: 2 });
    expect((failed as { stderr: string }).stderr).to.contain('--plan: unknown plan; one of: free, enthusiast');
  });

  it('billing verify: exit 0 when every period matches its ledger, 1 naming the key and the difference when not', async function () {
    this.timeout(30_000);
    const store = await TestStore.open(databaseUrl);
    try {
      const key = await store.key({ credits: 100 });
      const billing = new SqlBillingStore(store.db);
      const facts = { instanceId: 'cli-test', operation: 'v2GeneralGet', engine: 'plain', proxyType: 'datacenter', proxyCountry: null, targetHost: 'example.com', settleLimitMs: 60_000 };
      const debit = { cost: 5, budgeted: false, at: Date.now() };
      const off = { allowance: 0, windowMs: 3_600_000 };
      const [charged, refunded] = [randomUUID(), randomUUID()];
      expect(await billing.reserveByHash(hashApiKey(key), debit, off, { ...facts, requestId: charged })).to.equal(true);
      expect(await billing.reserveByHash(hashApiKey(key), debit, off, { ...facts, requestId: refunded })).to.equal(true);
      const ended = { endedAt: Date.now(), status: 200, pageStatus: 200, durationMs: 3, failure: null, proxyCountry: null };
      expect(await billing.charge(charged, ended, 60_000, 5_000)).to.equal(true);
      expect(await billing.refund(refunded, { ...ended, status: 404 }, false, 'request')).to.equal(true);
      const balanced = await cli('billing', 'verify');
      expect(balanced.stdout).to.contain('The books balance');

      // Credits taken outside the ledger (a hand-edited balance): the books no longer balance.
      const record = (await store.keys.find(key))!;
      await store.db.knex('api_keys').where({ id: record.id }).decrement('credits_remaining', 7);
      const failed = await cli('billing', 'verify').catch((e: { code: number; stdout: string }) => e);
      expect(failed).to.include({ code: 1 });
      expect((failed as { stdout: string }).stdout).to.contain(record.prefix).and.to.contain(`key #${record.id}`).and.to.contain('12 credits consumed, 5 in the ledger (+7)');
    } finally {
      await store.close();
    }
  });
});
