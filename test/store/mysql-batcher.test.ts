import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { hashApiKey } from '../../src/billing/billing.js';
import type { LedgerEntry } from '../../src/billing/billing-store.js';
import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { MysqlBatcher, type BatchedWrite } from '../../src/store/billing/mysql-batcher.js';
import { SqlBillingStore } from '../../src/store/billing/sql-billing-store.js';
import { migrate, openDatabase, type Database } from '../../src/store/database.js';
import { testDatabases } from '../helpers/databases.js';

/** A write that records how it was called; `fail` decides a batch's fate. */
function recorder(fail?: (items: number[]) => Error | undefined): BatchedWrite<number, string> & { calls: Array<{ kind: string; items: number[]; timeoutMs?: number }> } {
  const calls: Array<{ kind: string; items: number[]; timeoutMs?: number }> = [];
  return {
    calls,
    one: async (item, timeoutMs) => {
      calls.push({ kind: 'one', items: [item], timeoutMs });
      if (item < 0) throw new Error(`bad item ${item}`);
      return `one:${item}`;
    },
    many: async (items, timeoutMs) => {
      calls.push({ kind: 'many', items: [...items], timeoutMs });
      const err = fail?.(items);
      if (err) throw err;
      return items.map((i) => `many:${i}`);
    },
    compare: (a, b) => a - b,
  };
}

const serverError = (code: string) => Object.assign(new Error(code), { code, sqlState: '23000', fatal: false });

describe('MysqlBatcher', () => {
  it('sends the writes of one turn together, in lock order, and answers each its own result', async () => {
    const write = recorder();
    const batcher = new MysqlBatcher(write);
    const answers = await Promise.all([5, 3, 9, 1].map((i) => batcher.submit(i, i * 100)));
    expect(answers).to.deep.equal(['many:5', 'many:3', 'many:9', 'many:1']);
    expect(write.calls).to.deep.equal([{ kind: 'many', items: [1, 3, 5, 9], timeoutMs: 900 }]);
  });

  it('sends a write alone as its single statement, and never waits for company', async () => {
    const write = recorder();
    const batcher = new MysqlBatcher(write);
    expect(await batcher.submit(7, undefined)).to.equal('one:7');
    expect(await batcher.submit(8, 50)).to.equal('one:8');
    expect(write.calls.map((c) => c.kind)).to.deep.equal(['one', 'one']);
  });

  it('splits a crowd into batches of at most 64', async () => {
    const write = recorder();
    const batcher = new MysqlBatcher(write);
    await Promise.all(Array.from({ length: 150 }, (_, i) => batcher.submit(i, 10)));
    expect(write.calls.map((c) => c.items.length)).to.deep.equal([64, 64, 22]);
  });

  it('a batch the server rolled back whole is sent again write by write, so only the bad one fails', async () => {
    const write = recorder((items) => (items.includes(-1) ? serverError('ER_DUP_ENTRY') : undefined));
    const batcher = new MysqlBatcher(write);
    const settled = await Promise.allSettled([2, -1, 4].map((i) => batcher.submit(i, 10)));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).to.deep.equal(['one:2', 'bad item -1', 'one:4']);
  });

  it('a lost lock, a timeout or a lost connection fails every write of the batch (it may have committed, or is the caller\'s to retry)', async () => {
    for (const err of [serverError('ER_LOCK_DEADLOCK'), Object.assign(new Error('timeout'), { code: 'PROTOCOL_SEQUENCE_TIMEOUT', fatal: true }), Object.assign(new Error('gone'), { code: 'ECONNRESET' })]) {
      const write = recorder(() => err);
      const batcher = new MysqlBatcher(write);
      const settled = await Promise.allSettled([1, 2, 3].map((i) => batcher.submit(i, 10)));
      expect(settled.every((s) => s.status === 'rejected' && s.reason === err), String(err)).to.equal(true);
      expect(write.calls.map((c) => c.kind), 'nothing sent again').to.deep.equal(['many']);
    }
  });
});

const entry = (): LedgerEntry => ({
  requestId: randomUUID(), instanceId: 'test', operation: 'v2GeneralGet', engine: 'plain', proxyType: 'datacenter',
  proxyCountry: null, targetHost: 'example.com', settleLimitMs: 60_000,
});
const settlement = { endedAt: 0, status: 200, pageStatus: 200, durationMs: 5, failure: null, proxyCountry: 'US' };

/** The grouped writes (MySQL batches, SQLite group commit) exact under a crowd of one moment. */
for (const database of testDatabases()) {
  describe(`grouped ledger writes (${database.name})`, () => {
    let db: Database;
    let store: SqlBillingStore;
    let keys: ApiKeyStore;
    const now = Date.now();
    const off = { allowance: 0, windowMs: 3_600_000 };
    const statements: string[] = [];
    before(async () => {
      db = openDatabase(database.freshUrl());
      await migrate(db);
      store = new SqlBillingStore(db);
      keys = new ApiKeyStore(db.knex, () => now);
      db.knex.on('query', (q: { sql: string }) => statements.push(q.sql));
    });
    after(() => db.close());

    it('reserves exactly what each key holds when forty requests of three keys arrive at once, and charges each in a shared round trip', async () => {
      const accounts = await Promise.all([25, 10, 40].map((credits) => keys.create({ planName: 'startup', credits, maxConcurrency: null })));
      statements.length = 0;
      const asks = Array.from({ length: 120 }, (_, i) => ({ key: accounts[i % 3].key, e: entry() }));
      const reserved = await Promise.all(asks.map((a) => store.reserveByHash(hashApiKey(a.key), { cost: 1, budgeted: false, at: now }, off, a.e)));
      for (const [i, credits] of [25, 10, 40].entries()) {
        const mine = asks.flatMap((a, j) => (a.key === accounts[i].key ? [reserved[j]] : []));
        expect(mine.filter(Boolean).length, `key ${i}`).to.equal(credits);
        expect((await keys.find(accounts[i].key))?.creditsRemaining).to.equal(0);
      }
      const granted = asks.filter((_, j) => reserved[j]);
      const rows = await db.knex('request_ledger').whereIn('request_id', asks.map((a) => a.e.requestId));
      expect(rows.map((r: { request_id: string }) => r.request_id).sort()).to.deep.equal(granted.map((a) => a.e.requestId).sort());
      const charged = await Promise.all(granted.map((a) => store.charge(a.e.requestId, settlement, 30_000, 5_000)));
      expect(charged.every(Boolean)).to.equal(true);
      expect(await Promise.all([store.charge(granted[0].e.requestId, settlement, 30_000, 5_000), store.charge(randomUUID(), settlement, 30_000, 5_000)]), 'once, and only a reserved row').to.deep.equal([false, false]);
      expect(await db.knex('request_ledger').whereIn('request_id', asks.map((a) => a.e.requestId)).where({ outcome: 'charged' }).count({ n: '*' }).first()).to.deep.include({ n: 75 });
      if (database.name === 'mysql') expect(statements.length, 'far fewer round trips than writes').to.be.below(20);
    });

    it('a request id reserved twice in one moment reserves once, and the rest of its batch is not harmed', async () => {
      const { key } = await keys.create({ planName: 'startup', credits: 100, maxConcurrency: null });
      const twice = entry();
      const others = [entry(), entry(), entry()];
      const settled = await Promise.allSettled([twice, ...others, twice].map((e) => store.reserveByHash(hashApiKey(key), { cost: 10, budgeted: false, at: now }, off, e)));
      expect(settled.map((s) => s.status)).to.have.members(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
      expect((await keys.find(key))?.creditsRemaining).to.equal(60);
      expect(await db.knex('request_ledger').whereIn('request_id', [twice, ...others].map((e) => e.requestId)).count({ n: '*' }).first()).to.deep.include({ n: 4 });
    });
  });
}
