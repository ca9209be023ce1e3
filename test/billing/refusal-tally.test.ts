import { expect } from 'chai';
import { RefusalTally, type RefusalCount } from '../../src/billing/refusal-tally.js';
import { eventually } from '../helpers/eventually.js';

describe('refusal counts (RefusalTally)', () => {
  it('sums refusals per key, day and status in memory and writes them in one flush', async () => {
    const written: RefusalCount[][] = [];
    const tally = new RefusalTally({ add: async (counts) => void written.push(counts) }, () => undefined, 60_000);
    const day = Date.parse('2026-11-23T10:00:00Z');
    for (let i = 0; i < 500; i++) tally.count(1, 409, day);
    tally.count(1, 403, day);
    tally.count(2, 409, day + 86_400_000);
    expect(written, 'nothing is written per refusal').to.deep.equal([]);
    await tally.close();
    expect(written).to.have.length(1);
    expect(written[0]).to.deep.equal([
      { apiKeyId: 1, day: '2026-11-23', status: 409, count: 500 },
      { apiKeyId: 1, day: '2026-11-23', status: 403, count: 1 },
      { apiKeyId: 2, day: '2026-11-24', status: 409, count: 1 },
    ]);
  });

  it('flushes on its own after the interval, and reports a failed write without throwing', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const tally = new RefusalTally({ add: async () => { calls++; throw new Error('database down'); } }, (err) => errors.push(err), 20);
    tally.count(1, 403, Date.now());
    // A 20 ms timer fires late on a busy machine: wait for it (bounded) rather than a fixed time.
    await eventually(() => calls === 1, 5_000, 'the flush after the interval');
    await new Promise((r) => setTimeout(r, 50));
    expect(calls, 'one flush: a failed batch is not written again').to.equal(1);
    expect(errors).to.have.length(1);
    await tally.close();
    expect(calls, 'nothing left to write').to.equal(1);
  });
});
