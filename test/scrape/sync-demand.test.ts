import { expect } from 'chai';
import { SyncDemand } from '../../src/scrape/sync-demand.js';

/** Whether `promise` has settled by the next turns of the event loop. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('SyncDemand', () => {
  it('gives background work its turn at once when no synchronous request is in flight', async () => {
    expect(await settled(new SyncDemand().turn())).to.equal(true);
  });

  it('holds background work while synchronous requests run, and lets it go once they have been quiet a while', async () => {
    const demand = new SyncDemand({ quietMs: 30, trickleMs: 60_000 });
    const end = demand.begin();
    const turn = demand.turn();
    expect(await settled(turn)).to.equal(false);
    const ended = Date.now();
    end();
    end(); // ending twice counts once
    expect(demand.busy).to.equal(0);
    expect(await settled(turn)).to.equal(false);
    await turn;
    expect(Date.now() - ended).to.be.at.least(25);
  });

  it('starts one waiting piece every trickle while synchronous requests keep coming: a batch is never starved', async () => {
    const demand = new SyncDemand({ quietMs: 30, trickleMs: 40 });
    demand.begin();
    const turns = [demand.turn(), demand.turn()];
    await turns[0];
    expect(await settled(turns[1])).to.equal(false);
    await turns[1];
  });

  it('lets everything go when the service stops', async () => {
    const demand = new SyncDemand({ trickleMs: 60_000 });
    demand.begin();
    const stop = new AbortController();
    const turn = demand.turn(stop.signal);
    stop.abort();
    expect(await settled(turn)).to.equal(true);
  });
});
