import { expect } from 'chai';
import { once } from 'node:events';
import { TargetForbiddenError } from '../../src/egress/fetch-errors.js';
import { directEgress } from '../helpers/egress.js';
import { TargetServer } from '../helpers/target-server.js';

/**
 * DNS rebinding on loopback only: a name answers an allowed address (127.0.0.2) when checked and
 * a forbidden one (127.0.0.1, where a victim listens on the same port) on any later lookup.
 */
describe('EgressContext (real sockets on loopback)', () => {
  const legit = new TargetServer('127.0.0.2');
  const victim = new TargetServer('127.0.0.1');
  before(async () => {
    await legit.start();
    await victim.start(legit.port);
  });
  after(async () => {
    await legit.stop();
    await victim.stop();
  });

  function rebinding(): () => Promise<Array<{ address: string; family: number }>> {
    let lookups = 0;
    return async () => [{ address: lookups++ === 0 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
  }

  it('connects to the address it checked, however the name resolves afterwards', async () => {
    const egress = directEgress({ allowCidrs: '127.0.0.2/32', lookup: rebinding() });
    await egress.checkUrl(new URL(`http://rebind.test:${legit.port}/`));
    for (let i = 0; i < 3; i++) {
      const socket = await egress.dial('rebind.test', legit.port);
      expect(socket.remoteAddress).to.equal('127.0.0.2');
      socket.resume();
      socket.end('GET /page HTTP/1.1\r\nHost: rebind.test\r\nConnection: close\r\n\r\n');
      await once(socket, 'close');
    }
    expect(legit.requestsTo('/page')).to.have.length(3);
    expect(victim.requests).to.deep.equal([]);
    egress.deadline.dispose();
  });

  it('refuses a later lookup that lands on a forbidden address, without connecting', async () => {
    const lookup = rebinding();
    await lookup(); // the check's answer went elsewhere (another request)
    const egress = directEgress({ allowCidrs: '127.0.0.2/32', lookup });
    const err = await egress.dial('rebind.test', legit.port).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TargetForbiddenError);
    expect((err as TargetForbiddenError).reason).to.equal('rebind.test is not an allowed target');
    expect(victim.requests).to.deep.equal([]);
    egress.deadline.dispose();
  });
});
