import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../src/store/database.js';
import { SqliteGroupCommit } from '../../src/store/billing/sqlite-group-commit.js';

describe('SqliteGroupCommit', () => {
  let db: Database;
  let url: string;
  let group: SqliteGroupCommit;

  beforeEach(async () => {
    url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'group-')), 'g.sqlite')}`;
    db = openDatabase(url);
    await db.knex.raw('CREATE TABLE t (n INTEGER PRIMARY KEY)');
    group = new SqliteGroupCommit(db.knex);
  });
  afterEach(() => db.close());

  const insert = (n: number) => group.run((conn) => conn.prepare('INSERT INTO t (n) VALUES (?)').run(n).changes);
  const rows = async () => ((await db.knex('t').orderBy('n')) as Array<{ n: number }>).map((r) => r.n);

  it('commits the writes of one turn in their order, each answered with its own result', async () => {
    expect(await Promise.all([1, 2, 3, 4].map(insert))).to.deep.equal([1, 1, 1, 1]);
    expect(await rows()).to.deep.equal([1, 2, 3, 4]);
    // Every one was committed before its promise settled: another connection sees them all.
    const other = openDatabase(url);
    try {
      expect(((await other.knex('t').count({ c: '*' }).first()) as { c: number }).c).to.equal(4);
    } finally {
      await other.close();
    }
    expect(await insert(5)).to.equal(1);
    expect(await rows()).to.deep.equal([1, 2, 3, 4, 5]);
  });

  it('a write that fails rolls back alone: the others of its batch are committed, it rejects with its own error', async () => {
    const failing = group.run((conn) => {
      conn.prepare('INSERT INTO t (n) VALUES (?)').run(20);
      throw new Error('this write fails after its insert');
    });
    const [a, b, c] = await Promise.allSettled([insert(10), failing, insert(30)]);
    expect(a).to.deep.equal({ status: 'fulfilled', value: 1 });
    expect(c).to.deep.equal({ status: 'fulfilled', value: 1 });
    expect(b.status).to.equal('rejected');
    expect(((b as PromiseRejectedResult).reason as Error).message).to.equal('this write fails after its insert');
    expect(await rows(), 'the failed write left nothing').to.deep.equal([10, 30]);
  });

  it('a constraint violation in one write leaves the batch standing', async () => {
    await insert(1);
    const results = await Promise.allSettled([insert(2), insert(1), insert(3)]);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(await rows()).to.deep.equal([1, 2, 3]);
  });
});
