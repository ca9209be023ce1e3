import { expect } from 'chai';
import { openDatabase, type Database } from '../../src/store/database.js';
import { retryingLostLocks } from '../../src/store/deadlock-retry.js';

/** Two transactions that lock two rows in opposite orders: InnoDB kills one as the deadlock victim. */
async function realDeadlock(db: Database, table: string): Promise<unknown> {
  const [t1, t2] = await Promise.all([db.knex.transaction(), db.knex.transaction()]);
  try {
    await t1(table).where({ id: 1 }).update({ n: 1 });
    await t2(table).where({ id: 2 }).update({ n: 2 });
    const outcomes = await Promise.allSettled([t1(table).where({ id: 2 }).update({ n: 1 }), t2(table).where({ id: 1 }).update({ n: 2 })]);
    return outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')?.reason;
  } finally {
    await t1.rollback().catch(() => undefined);
    await t2.rollback().catch(() => undefined);
  }
}

describe('retryingLostLocks', () => {
  const lost = Object.assign(new Error('Deadlock found when trying to get lock'), { code: 'ER_LOCK_DEADLOCK' });

  it('runs a deadlock victim again, and returns its result', async () => {
    let calls = 0;
    const result = await retryingLostLocks(async () => {
      if (++calls < 3) throw lost;
      return 'done';
    });
    expect({ result, calls }).to.deep.equal({ result: 'done', calls: 3 });
  });

  it('gives up after four tries, and never retries any other error', async () => {
    let calls = 0;
    const always = await retryingLostLocks(async () => {
      calls++;
      throw lost;
    }).catch((e: unknown) => e);
    expect({ always, calls }).to.deep.equal({ always: lost, calls: 4 });
    calls = 0;
    const duplicate = Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY' });
    const other = await retryingLostLocks(async () => {
      calls++;
      throw duplicate;
    }).catch((e: unknown) => e);
    expect({ other, calls }).to.deep.equal({ other: duplicate, calls: 1 });
  });

  const mysqlUrl = process.env.TEST_MYSQL_URL;
  (mysqlUrl ? it : it.skip)('recognises the error MariaDB really raises for a deadlock victim (TEST_MYSQL_URL)', async function () {
    this.timeout(30_000);
    const db = openDatabase(mysqlUrl!);
    const table = `deadlock_probe_${process.pid}`;
    try {
      await db.knex.schema.dropTableIfExists(table);
      await db.knex.schema.createTable(table, (t) => {
        t.integer('id').primary();
        t.integer('n');
      });
      await db.knex(table).insert([{ id: 1, n: 0 }, { id: 2, n: 0 }]);
      const victim = await realDeadlock(db, table);
      expect((victim as { code?: string }).code).to.equal('ER_LOCK_DEADLOCK');
      let calls = 0;
      await retryingLostLocks(async () => {
        if (++calls === 1) throw victim;
      });
      expect(calls).to.equal(2);
    } finally {
      await db.knex.schema.dropTableIfExists(table);
      await db.close();
    }
  });
});
