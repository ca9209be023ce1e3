import { expect } from 'chai';
import { FairQueue } from '../../../src/content/html-work/fair-queue.js';

function takeAll<T>(queue: FairQueue<T>): T[] {
  const out: T[] = [];
  for (let item = queue.take(); item !== undefined; item = queue.take()) out.push(item);
  return out;
}

describe('FairQueue', () => {
  it('serves keys in turn, each key its items in order', () => {
    const queue = new FairQueue<string>({ total: 100, perKey: 10 });
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('a', item);
    for (const item of ['b1', 'b2']) queue.push('b', item);
    queue.push('c', 'c1');
    expect(takeAll(queue)).to.deep.equal(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('serves a key that arrives next, before the key that was served while it was away', () => {
    const queue = new FairQueue<string>({ total: 100, perKey: 10 });
    for (const item of ['a1', 'a2', 'a3']) queue.push('a', item);
    expect(queue.take()).to.equal('a1');
    queue.push('b', 'b1');
    expect(takeAll(queue)).to.deep.equal(['b1', 'a2', 'a3']);
  });

  it('keeps the turn a key took when its line emptied: queueing again puts it behind a newcomer', () => {
    const queue = new FairQueue<string>({ total: 100, perKey: 10 });
    queue.push('a', 'a1');
    expect(queue.take()).to.equal('a1');
    queue.push('a', 'a2');
    queue.push('b', 'b1');
    expect(takeAll(queue)).to.deep.equal(['b1', 'a2']);
  });

  it('gives a key that comes back no run of turns for the time it was away', () => {
    const queue = new FairQueue<string>({ total: 100, perKey: 100 });
    for (let i = 0; i < 50; i++) queue.push('a', `a${i}`);
    for (let i = 0; i < 40; i++) queue.take();
    for (const item of ['b1', 'b2', 'b3']) queue.push('b', item);
    expect(takeAll(queue).slice(0, 6)).to.deep.equal(['b1', 'a40', 'b2', 'a41', 'b3', 'a42']);
  });

  it('refuses past its key share and past its total, and counts what waits', () => {
    const queue = new FairQueue<number>({ total: 3, perKey: 2 });
    expect(queue.push('a', 1)).to.equal(undefined);
    expect(queue.push('a', 2)).to.equal(undefined);
    expect(queue.push('a', 3)).to.equal('key');
    expect(queue.push('b', 4)).to.equal(undefined);
    expect(queue.push('c', 5)).to.equal('all');
    expect(queue.size).to.equal(3);
    expect(queue.waitingOf('a')).to.equal(2);
    queue.take();
    expect(queue.push('c', 5)).to.equal(undefined);
  });

  it('removes a cancelled item wherever it waits, once', () => {
    const queue = new FairQueue<string>({ total: 10, perKey: 10 });
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    queue.push('b', 'b1');
    expect(queue.remove('a', 'a2')).to.equal(true);
    expect(queue.remove('a', 'a2')).to.equal(false);
    expect(queue.remove('b', 'b1')).to.equal(true);
    expect(queue.size).to.equal(1);
    expect(takeAll(queue)).to.deep.equal(['a1']);
    expect(queue.drain()).to.deep.equal([]);
  });
});
