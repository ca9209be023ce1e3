import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { TestStore } from '../helpers/keys.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TargetServer } from '../helpers/target-server.js';

const sqlite = testDatabases().find((d) => d.name === 'sqlite')!;

/** Concurrent synchronous clients, each sending one request after another. */
const CLIENTS = 4;
/** Requests each phase measures, after its warm-up. */
const SAMPLES = 400;
/**
 * Phases alternate, alone then during a batch, this many times, and each side's p99 is over all
 * of its rounds (6,400 requests a side): a drift of the machine's load weighs on both alike. Fewer
 * do not judge a p99 to a tenth: on this 2-core machine the sync requests stall together every few
 * hundred ms whatever runs beside them (a garbage collection, the scheduler), so a round's p99 is
 * 30–110 ms at a p50 of 14–17, and the ratio moved 0.91–1.20 between runs of 900 requests a side
 * and 0.85–1.16 at 4,000. One more round before them is not measured: the first round's phase
 * alone paid for the server's warming.
 */
const ROUNDS = 16;
/** URLs of each round's batch (cancelled when its phase ends). */
const BATCH_URLS = 2_000;
/** Requests of each phase not measured: the server warming up. */
const WARM_UP = 2 * CLIENTS;
/**
 * Of the phase during the batch, the requests begun in its first second are not measured either:
 * the job workers' items already running when synchronous load begins are not preempted (a
 * worker yields before it takes an item, not inside one), and end within that second. The bound is
 * on the steady state, with the batch's items still starting at the trickle's pace.
 */
const SETTLE_MS = 1_000;
/**
 * The bound: synchronous p99 during a running batch within this of the p99 without it.
 * Runs of this test gave 1.00–1.11× (docs/jobs.md); the trickle that still starts one waiting
 * item a second while synchronous requests keep coming did not move it measurably (started
 * four times as often, 0.98×).
 */
const BOUND = 1.2;

function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
}

/**
 * Synchronous requests keep priority over a batch on one instance's CPU: plain job workers wait
 * for their turn while synchronous requests are in flight (scrape/sync-demand.ts). Every figure
 * comes from this run, one server process: the synchronous p99 without a batch (measured before
 * and after, so that a drift of the machine's load is shared by both sides) against the p99 while
 * a large batch of the same key is scraping.
 */
describe('jobs: synchronous requests keep their p99 during a running batch', function () {
  this.timeout(300_000);
  let own: { url: string; drop: () => Promise<void> };
  let store: TestStore;
  let target: TargetServer;
  let server: ServerProcess;

  before(async () => {
    own = await sqlite.isolated();
    store = await TestStore.open(own.url);
    target = await new TargetServer().start();
    server = await new ServerProcess({ DATABASE_URL: own.url, ALLOW_PRIVATE_TARGETS: 'true', BROWSER_POOL_SIZE: '0', JOB_WORKERS: '16' }).start();
  });
  after(async () => {
    await server?.kill();
    await target?.stop();
    await store?.close();
    await own?.drop();
  });

  it(`keeps the p99 within ${BOUND}× of the p99 without a batch`, async () => {
    const key = await store.key({ credits: 10_000_000 });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    let sent = 0;
    const scrape = async (): Promise<{ started: number; ms: number }> => {
      const started = performance.now();
      const res = await fetch(`${server.base}/v2/scrape`, { method: 'POST', headers, body: JSON.stringify({ url: target.url(`/page?sync=${sent++}`), formats: ['markdown'] }) });
      await res.arrayBuffer();
      expect(res.status).to.equal(200);
      return { started, ms: performance.now() - started };
    };
    const phase = async (settleMs: number): Promise<number[]> => {
      const samples: Array<{ started: number; ms: number }> = [];
      const begun = performance.now();
      let measured = 0;
      let unmeasured = WARM_UP;
      await Promise.all(Array.from({ length: CLIENTS }, async () => {
        while (measured < SAMPLES) {
          const one = await scrape();
          if (unmeasured > 0 || one.started - begun < settleMs) unmeasured--;
          else if (measured++ < SAMPLES) samples.push(one);
        }
      }));
      return samples.map((one) => one.ms);
    };

    const status = async (id: string) => (await (await fetch(`${server.base}/v2/batch/scrape/${id}?limit=1`, { headers })).json()) as { status: string; completed: number };
    // The server's first requests and its first batch (modules, pools, connections, the job
    // engine's code): measured by nobody, so that the first round's batch pays no more than the last's.
    const warm = await fetch(`${server.base}/v2/batch/scrape`, {
      method: 'POST', headers, body: JSON.stringify({ urls: Array.from({ length: 200 }, (_, i) => target.url(`/page?warm=${i}`)), formats: ['markdown'] }),
    });
    const warmId = ((await warm.json()) as { id: string }).id;
    await phase(0);
    await eventually(async () => (await status(warmId)).status === 'completed', 60_000, 'the warm-up batch');
    const alone: number[][] = [];
    const during: number[][] = [];
    let progressed = 0;
    for (let round = -1; round < ROUNDS; round++) {
      // After a round's batch is cancelled, its items already running end within the settle.
      const quiet = await phase(SETTLE_MS);
      if (round >= 0) alone.push(quiet);
      const submitted = await fetch(`${server.base}/v2/batch/scrape`, {
        method: 'POST', headers, body: JSON.stringify({ urls: Array.from({ length: BATCH_URLS }, (_, i) => target.url(`/page?batch=${round}-${i}`)), formats: ['markdown'] }),
      });
      const { id } = (await submitted.json()) as { id: string };
      // The batch runs flat out before the synchronous load begins.
      await eventually(async () => (await status(id)).completed >= 100, 60_000, 'the batch under way');
      const before = (await status(id)).completed;
      const busy = await phase(SETTLE_MS);
      if (round >= 0) during.push(busy);
      progressed += (await status(id)).completed - before;
      await fetch(`${server.base}/v2/batch/scrape/${id}`, { method: 'DELETE', headers });
    }

    const ratio = p99(during.flat()) / p99(alone.flat());
    const each = alone.map((a, i) => `${p99(a).toFixed(1)}/${p99(during[i]).toFixed(1)}`).join(', ');
    console.log(`      sync p99 alone ${p99(alone.flat()).toFixed(1)} ms, during the batch ${p99(during.flat()).toFixed(1)} ms: ${ratio.toFixed(2)}× (rounds, alone/during: ${each}); the batches did ${progressed} items meanwhile`);
    expect(ratio).to.be.at.most(BOUND);
    // Not starved either: a waiting item still starts every second while synchronous requests keep coming.
    expect(progressed).to.be.above(0);
  });
});
