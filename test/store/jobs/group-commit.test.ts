import { expect } from 'chai';
import { GroupCommit } from '../../../src/store/jobs/group-commit.js';

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
});
