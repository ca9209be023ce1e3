import { expect } from 'chai';
import { Redis } from 'ioredis';
import { HostBusyError, HostGate } from '../../../src/jobs/crawl/host-gate.js';
import { TestRedis } from '../../helpers/test-redis.js';

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
    let third = false;
    const waiting = one.enter('site:1', rule).then((turn) => {
      third = true;
      return turn;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(third).to.equal(false);
    await first.release();
    await (await waiting).release();
    expect(third).to.equal(true);
    // A holder that never releases (its instance died) lets go after its lease.
    const short = { cap: 1, spacingMs: 0, leaseMs: 300 };
    await one.enter('site:2', short);
    const started = performance.now();
    await two.enter('site:2', short);
    expect(performance.now() - started).to.be.at.least(200);
  });

  it('spaces one-at-a-time requests by the delay after each ends, and backs a host off', async () => {
    const gate = new HostGate(a, 'delay');
    const rule = { cap: 1, spacingMs: 150, leaseMs: 60_000 };
    const turn = await gate.enter('site:3', rule);
    await turn.release();
    const released = performance.now();
    await (await gate.enter('site:3', rule)).release();
    expect(performance.now() - released).to.be.at.least(140);
    await gate.backOff('site:4', 400);
    const asked = performance.now();
    await (await gate.enter('site:4', { cap: 2, spacingMs: 0, leaseMs: 60_000 })).release();
    expect(performance.now() - asked).to.be.at.least(350);
  });

  it('gives up on a host whose turn does not come, so the item goes back to the queue', async () => {
    const gate = new HostGate(a, 'busy');
    await gate.backOff('site:5', 60_000);
    let refused: unknown;
    await gate.enter('site:5', { cap: 1, spacingMs: 0, leaseMs: 60_000 }).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(HostBusyError);
  });
});
