import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClientCancelledError } from '../../src/time/client-cancelled-error.js';
import { callerLeaves, race, within } from '../../src/time/deadline-race.js';

/** Rejections no one handled while `body` ran (and one turn after), caught instead of crashing. */
async function unhandledDuring(body: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on('unhandledRejection', listener);
  try {
    await body();
    await sleep(20);
  } finally {
    process.off('unhandledRejection', listener);
  }
  return seen;
}

describe('race', () => {
  it("settles with the work's outcome when no end comes first", async () => {
    expect(await race(Promise.resolve(7), [within(1000, () => new Error('late'))])).to.equal(7);
    const failed = await race(Promise.reject(new Error('work failed')), [within(1000, () => new Error('late'))]).catch((e: Error) => e.message);
    expect(failed).to.equal('work failed');
  });

  it("rejects with the first end's error and calls its onEnd", async () => {
    let ended = false;
    const never = new Promise<number>(() => undefined);
    const err = await race(never, [{ afterMs: 5, error: () => new Error('too slow'), onEnd: () => (ended = true) }]).catch((e: Error) => e);
    expect((err as Error).message).to.equal('too slow');
    expect(ended).to.equal(true);
  });

  it('ends at once for a caller already gone, and the work failing afterwards is not an unhandled rejection', async () => {
    const gone = AbortSignal.abort();
    const unhandled = await unhandledDuring(async () => {
      const work = sleep(5).then(() => Promise.reject(new ClientCancelledError()));
      const err = await race(work, [callerLeaves(gone)]).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(ClientCancelledError);
      await sleep(10);
    });
    expect(unhandled).to.deep.equal([]);
  });

  it('leaves no listener on a long-lived signal once the work is done', async () => {
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => (added++, add(...args))) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => (removed++, remove(...args))) as typeof remove;
    for (let i = 0; i < 20; i++) await race(Promise.resolve(i), [{ signal, error: () => new Error('stopped') }]);
    expect(added).to.equal(20);
    expect(removed).to.equal(20);
  });
});
