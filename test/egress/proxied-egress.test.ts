import { expect } from 'chai';
import pino from 'pino';
import { EgressError } from '../../src/egress/fetch-errors.js';
import { EgressContext } from '../../src/egress/egress-context.js';
import { parseProxyCatalog } from '../../src/egress/proxies/proxy-config.js';
import { ProxyHealth } from '../../src/egress/proxies/proxy-health.js';
import { ProxyPool } from '../../src/egress/proxies/proxy-pool.js';
import { Deadline } from '../../src/time/deadline.js';
import { targetPolicy } from '../helpers/egress.js';
import { TargetServer } from '../helpers/target-server.js';
import { closedPort, TestProxy } from '../helpers/test-proxy.js';

/** Tunnels through real CONNECT proxies on loopback: which failures cool a proxy down for everyone. */
describe('EgressContext through upstream proxies', () => {
  const healthy = [new TestProxy('127.0.0.31'), new TestProxy('127.0.0.32')];
  const broken = new TestProxy('127.0.0.33', 'auth-required');
  before(async () => {
    for (const p of [...healthy, broken]) await p.start();
  });
  after(async () => {
    for (const p of [...healthy, broken]) await p.stop();
  });

  function open(country: string, health: ProxyHealth, catalog: Record<string, string[]>): EgressContext {
    const pool = new ProxyPool(parseProxyCatalog({ datacenter: catalog }), health);
    const policy = targetPolicy({ allowCidrs: '127.0.0.2/32' });
    return new EgressContext(policy, pool.route('datacenter', country), new Deadline(5_000), pino({ level: 'silent' }));
  }

  it('a target the proxies cannot reach (they answer 502) fails the request but cools no proxy', async () => {
    const failures: string[] = [];
    const health = new ProxyHealth(Date.now, (p) => failures.push(p.id));
    const egress = open('US', health, { US: healthy.map((p) => p.url()) });
    const port = await closedPort('127.0.0.2');
    const err = await egress.dial('127.0.0.2', port).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(EgressError);
    expect((err as EgressError).kind).to.equal('unreachable');
    expect((err as Error).message).to.equal('every proxy reported the target unreachable (2 datacenter proxies for US tried)');
    expect(healthy.map((p) => p.connects.length)).to.deep.equal([1, 1]);
    expect(failures).to.deep.equal([]);
  });

  it('a proxy that fails as a proxy (407) is cooled down and the request moves on', async () => {
    const failures: string[] = [];
    const health = new ProxyHealth(Date.now, (p) => failures.push(p.id));
    const egress = open('DE', health, { DE: [broken.url(), healthy[0].url()] });
    const target = await new TargetServer('127.0.0.2').start();
    try {
      const socket = await egress.dial('127.0.0.2', target.port);
      socket.destroy();
      expect(failures).to.have.length(1);
      expect(health.cooling(failures[0])).to.equal(true);
    } finally {
      await target.stop();
    }
  });
});
