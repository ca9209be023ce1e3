import { expect } from 'chai';
import pino from 'pino';
import { EgressContext } from '../../src/egress/egress-context.js';
import { parseProxyCatalog } from '../../src/egress/proxies/proxy-config.js';
import { ProxyHealth } from '../../src/egress/proxies/proxy-health.js';
import { ProxyPool } from '../../src/egress/proxies/proxy-pool.js';
import { SessionPins } from '../../src/egress/proxies/session-pins.js';
import type { StickySession } from '../../src/egress/proxies/sticky-session.js';
import { Deadline } from '../../src/time/deadline.js';
import { targetPolicy } from '../helpers/egress.js';
import { TargetServer } from '../helpers/target-server.js';
import { TestProxy } from '../helpers/test-proxy.js';

/** Sticky sessions through real CONNECT proxies on loopback, two pools standing for two instances. */
describe('sticky sessions through upstream proxies', () => {
  const exits = [new TestProxy('127.0.0.41'), new TestProxy('127.0.0.42'), new TestProxy('127.0.0.43')];
  const gateway = new TestProxy('127.0.0.44');
  let target: TargetServer;
  before(async () => {
    for (const p of [...exits, gateway]) await p.start();
    target = await new TargetServer('127.0.0.2').start();
  });
  after(async () => {
    for (const p of [...exits, gateway]) await p.stop();
    await target.stop();
  });

  const clock = { now: 1_000_000 };
  function instance(): ProxyPool {
    const doc = { datacenter: { US: exits.map((p) => p.url()) }, residential: { '*': [gateway.url('user-{country}-sess-{session}')] } };
    return new ProxyPool(parseProxyCatalog(doc), new ProxyHealth(() => clock.now), Math.random, new SessionPins(300_000, undefined, () => clock.now));
  }

  /** One request's connection, as an engine opens it; answers which proxies carried CONNECTs. */
  async function dial(pool: ProxyPool, type: 'datacenter' | 'residential', country: string, session?: StickySession): Promise<number[]> {
    const before = exits.map((p) => p.connects.length);
    const egress = new EgressContext(targetPolicy({ allowCidrs: '127.0.0.2/32' }), pool.route(type, country, session), new Deadline(5_000), pino({ level: 'silent' }));
    (await egress.dial('127.0.0.2', target.port)).destroy();
    return exits.map((p, i) => p.connects.length - before[i]);
  }

  it('fail over to the exit the other instance picks too, and stay there once the failed one is back', async () => {
    const [a, b] = [instance(), instance()];
    const session = { key: '17', id: 4242 };
    const used = await dial(a, 'datacenter', 'US', session);
    expect(await dial(b, 'datacenter', 'US', session)).to.deep.equal(used);
    const home = used.indexOf(1);

    exits[home].behaviour = 'auth-required';
    try {
      const onA = await dial(a, 'datacenter', 'US', session);
      const onB = await dial(b, 'datacenter', 'US', session);
      expect(onA[home]).to.equal(1);
      expect(onA).to.deep.equal(onB);
      const moved = onA.findIndex((n, i) => n === 1 && i !== home);
      expect(moved).to.be.at.least(0);

      exits[home].behaviour = 'forward';
      clock.now += 5_000;
      const after = await dial(a, 'datacenter', 'US', session);
      expect(after.indexOf(1), 'the session stays where it moved').to.equal(moved);
    } finally {
      exits[home].behaviour = 'forward';
    }
  });

  it('log in to a gateway with the session\'s own value on both instances, a fresh one without a session', async () => {
    const [a, b] = [instance(), instance()];
    const users = async (pool: ProxyPool, session?: StickySession) => {
      await dial(pool, 'residential', 'DE', session);
      return gateway.connects[gateway.connects.length - 1].user;
    };
    const session = { key: '17', id: 7 };
    const sticky = await users(a, session);
    expect(sticky).to.match(/^user-de-sess-[0-9a-f]{16}$/);
    expect(await users(b, session)).to.equal(sticky);
    const plain = [await users(a), await users(a)];
    expect(plain[0]).to.match(/^user-de-sess-[0-9a-f]{16}$/);
    expect(plain[0]).to.not.equal(plain[1]);
    expect(plain).to.not.include(sticky);
  });
});
