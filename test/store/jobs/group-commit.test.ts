import { expect } from 'chai';
import { GROUP_MAX_BYTES, GroupCommit } from '../../../src/store/jobs/group-commit.js';

describe('GroupCommit', () => {
  it('sends a write alone at once, and what arrives while it is in flight together next', async () => {
    const batches: number[][] = [];
    let release: (() => void) | undefined;
    const group = new GroupCommit<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return items.map((i) => i * 10);
    });
    const first = group.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [group.submit(2), group.submit(3), group.submit(4)];
    release!();
    expect(await Promise.all([first, ...rest])).to.deep.equal([10, 20, 30, 40]);
    expect(batches).to.deep.equal([[1], [2, 3, 4]]);
  });

  it('sends a failed batch again one write at a time: each caller meets its own answer', async () => {
    const group = new GroupCommit<number, number>(async (items) => {
      if (items.includes(2)) throw new Error(items.length > 1 ? 'the batch failed' : 'two is refused');
      return items;
    });
    const outcomes = await Promise.allSettled([group.submit(1), group.submit(2), group.submit(3)]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).to.deep.equal([1, 'two is refused', 3]);
  });

  it('bounds a group by payload: a queue past 4 MiB goes out as several groups, a heavier write alone', async () => {
    const MiB = 1024 * 1024;
    expect(GROUP_MAX_BYTES).to.equal(4 * MiB);
    const groups: number[][] = [];
    let release: (() => void) | undefined;
    // Each item is its own payload's size.
    const group = new GroupCommit<number, number>(async (items) => {
      groups.push(items);
      if (groups.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return items;
    }, (bytes) => bytes);
    const first = group.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const queued = [MiB, MiB, MiB, MiB, 1, 3 * MiB, 2 * MiB, 9 * MiB, 10, 20].map((bytes) => group.submit(bytes));
    release!();
    await Promise.all([first, ...queued]);
    expect(groups).to.deep.equal([[1], [MiB, MiB, MiB, MiB], [1, 3 * MiB], [2 * MiB], [9 * MiB], [10, 20]]);
    for (const g of groups.slice(1)) expect(g.length === 1 || g.reduce((a, b) => a + b, 0) <= GROUP_MAX_BYTES, `${g}`).to.equal(true);
  });
});
