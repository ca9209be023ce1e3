import { expect } from 'chai';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { loopbackDestination } from '../helpers/loopback-only.js';

/**
 * The test process's safety net (root-hooks.ts installs it): no socket of a test reaches beyond
 * this machine. Refusals are checked on the decision alone; live connections only to loopback.
 */
describe('tests reach loopback only', () => {
  it('decides on the destination: loopback spellings pass, every other address is refused', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost', '0.0.0.0', '::']) {
      expect(loopbackDestination(host), host).to.equal(true);
    }
    for (const host of ['10.0.0.5', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '93.184.216.34', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', 'example.com']) {
      expect(loopbackDestination(host), host).to.equal(false);
    }
  });

  it('is installed on every socket of the test process, and lets loopback through by address and by name', async () => {
    expect(net.Socket.prototype.connect.name).to.equal('guarded');
    const server = http.createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).to.equal('ok');
      expect(await (await fetch(`http://localhost:${port}/`).catch(() => fetch(`http://127.0.0.1:${port}/`))).text()).to.equal('ok');
      // A name resolved by a lookup of the test's own: checked on what it resolves to.
      const viaName = await new Promise<string>((resolve, reject) => {
        const lookup = (_h: string, o: { all?: boolean }, cb: (e: null, a: string | Array<{ address: string; family: number }>, f?: number) => void) =>
          o.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4);
        http.get({ host: 'target.test', port, lookup }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(body));
        }).on('error', reject);
      });
      expect(viaName).to.equal('ok');
    } finally {
      server.close();
    }
  });
});
