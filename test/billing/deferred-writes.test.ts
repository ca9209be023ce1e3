import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeferredWrites } from '../../src/billing/deferred-writes.js';
import { eventually } from '../helpers/eventually.js';
import { StoreUnavailableError } from '../../src/billing/store-unavailable-error.js';

describe('DeferredWrites', () => {
  it('defers a write that meets an unavailable database and retries it until it goes through', async () => {
    const lost: string[] = [];
    const writes = new DeferredWrites({ firstDelayMs: 20, maxDelayMs: 40, onLost: (what) => lost.push(what) });
    let up = false;
    let applied = 0;
    const write = async () => {
      if (!up) throw new StoreUnavailableError(false, { message: 'connect ECONNREFUSED' });
      applied++;
    };
    await writes.run('first', write);
    await writes.run('second', write);
    expect(writes.size).to.equal(2);
    await sleep(100);
    expect(applied).to.equal(0);
    up = true;
    await eventually(() => writes.size === 0, 2_000, 'deferred writes applied');
    expect(applied).to.equal(2);
    // Any other error is the caller's, never deferred.
    let thrown: unknown;
    await writes.run('bad', () => Promise.reject(new Error('syntax'))).catch((err: unknown) => (thrown = err));
    expect(thrown).to.be.instanceOf(Error);
    expect(writes.size).to.equal(0);
    // At close, what is still pending is reported lost.
    up = false;
    await writes.run('third', write);
    await writes.close(100);
    expect(lost).to.deep.equal(['third']);
  });
});
