import { expect } from 'chai';
import { Redis } from 'ioredis';
import { HostBusyError, HostGate, type HostRule, type HostTurn } from '../../../src/jobs/crawl/host-gate.js';
import { laterMs } from '../../../src/jobs/retry-policy.js';
import { TestRedis } from '../../helpers/test-redis.js';

/** Enters as the job engine would: a busy host's item comes back when HostBusyError says. */
async function enterRequeued(gate: HostGate, host: string, rule: HostRule): Promise<HostTurn> {
  for (;;) {
    try {
      return await gate.enter(host, rule);
    } catch (err) {
      if (!(err instanceof HostBusyError)) throw err;
      await new Promise((resolve) => setTimeout(resolve, laterMs(err)));
    }
  }
}

describe('crawl host gate (Redis)', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let a: Redis;
  let b: Redis;
  before(async () => {
    redis = await TestRedis.start();
    a = new Redis(redis.url);
    b = new Redis(redis.url);
  });
  after(async () => {
    a?.disconnect();
    b?.disconnect();
    await redis?.kill();
  });

  it('holds a host cap over two gates (two instances), and lets a dead holder go when its lease lapses', async () => {
    const [one, two] = [new HostGate(a, 'cap'), new HostGate(b, 'cap')];
    const rule = { cap: 2, spacingMs: 0, leaseMs: 60_000 };
    const first = await one.enter('site:1', rule);
    await two.enter('site:1', rule);
    let refused: unknown;
    await one.enter('site:1', rule).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(HostBusyError);
    await first.release();
    await (await one.enter('site:1', rule)).release();
    // A holder that never releases (its instance died) lets go after its lease.
    const short = { cap: 1, spacingMs: 0, leaseMs: 300 };
    await one.enter('site:2', short);
    const started = performance.now();
    await enterRequeued(two, 'site:2', short);
    expect(performance.now() - started).to.be.at.least(200);
  });

  it('spaces one-at-a-time requests by the delay after each ends, and backs a host off', async () => {
    const gate = new HostGate(a, 'delay');
    const rule = { cap: 1, spacingMs: 150, leaseMs: 60_000 };
    const turn = await gate.enter('site:3', rule);
    await turn.release();
    const released = performance.now();
    await (await enterRequeued(gate, 'site:3', rule)).release();
    expect(performance.now() - released).to.be.at.least(140);
    await gate.backOff('site:4', 400);
    const asked = performance.now();
    await (await enterRequeued(gate, 'site:4', { cap: 2, spacingMs: 0, leaseMs: 60_000 })).release();
    expect(performance.now() - asked).to.be.at.least(350);
  });

  it('does not hold a worker waiting for a host: its item is requeued for when the turn comes (retryInMs)', async () => {
    const gate = new HostGate(a, 'busy');
    await gate.backOff('site:5', 60_000);
    let refused: unknown;
    let started = performance.now();
    await gate.enter('site:5', { cap: 1, spacingMs: 0, leaseMs: 60_000 }).catch((err: unknown) => (refused = err));
    expect(performance.now() - started).to.be.below(1_000);
    expect(refused).to.be.instanceOf(HostBusyError);
    expect((refused as HostBusyError).retryInMs).to.be.within(59_000, 60_000);
    expect(laterMs(refused)).to.be.within(59_000, 60_100);
    // A full host: its holders' ends are unknown, it is tried again soon.
    const held = await gate.enter('site:6', { cap: 1, spacingMs: 0, leaseMs: 60_000 });
    started = performance.now();
    refused = undefined;
    await gate.enter('site:6', { cap: 1, spacingMs: 0, leaseMs: 60_000 }).catch((err: unknown) => (refused = err));
    expect(performance.now() - started).to.be.below(1_000);
    expect((refused as HostBusyError).retryInMs).to.be.within(1, 1_000);
    await held.release();
  });
});
