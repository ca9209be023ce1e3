import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { OwnPorts } from '../../src/egress/target-policy/own-ports.js';
import { EgressGateway } from '../../src/egress/egress-gateway.js';
import { directEgress } from '../helpers/egress.js';
import { HostileTarget, hostileCases } from '../helpers/hostile-target.js';
import { TargetServer } from '../helpers/target-server.js';

interface Exchange {
  status: number;
  body: string;
}

/**
 * A plain-http request through the gateway, as Chromium sends one; a cut connection is `status: 0`.
 * `patienceMs`: how long the client waits on a silent connection before it gives up.
 */
function viaGateway(gateway: EgressGateway, url: string, auth: string | undefined, patienceMs = 5_000): Promise<Exchange> {
  return new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1',
      port: gateway.port,
      path: url,
      agent: false,
      headers: auth ? { 'proxy-authorization': auth } : {},
      timeout: patienceMs,
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: 0, body }));
      res.on('aborted', () => resolve({ status: 0, body }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

/** A raw CONNECT through the gateway: the status line it answers. */
function connectVia(gateway: EgressGateway, target: string, auth: string | undefined): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(gateway.port, '127.0.0.1', () => {
      socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`);
    });
    let data = '';
    socket.on('data', (c: Buffer) => {
      data += c.toString('latin1');
      if (data.includes('\r\n')) {
        socket.destroy();
        resolve(data.slice(0, data.indexOf('\r\n')));
      }
    });
    socket.on('error', () => resolve(data));
    socket.on('close', () => resolve(data));
  });
}

/**
 * An answer that leaves the client's request open: the target's silence after a head (by design:
 * the browser's own deadline ends it). The client gives up on it after 1 s, not 5 s: what is
 * checked is that the gateway serves the request after it.
 */
const STALLING = new Set(['a status line, then silence']);

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('EgressGateway', function () {
  this.timeout(120_000);
  const cases = hostileCases();
  const hostile = new HostileTarget(cases);
  const target = new TargetServer('127.0.0.2');
  let gateway: EgressGateway;
  let auth: string;

  before(async () => {
    await hostile.start();
    await target.start();
    gateway = await EgressGateway.open('127.0.0.1', new OwnPorts());
    auth = basic(gateway.credentials.username, gateway.credentials.password);
    gateway.serve(directEgress({ allowCidrs: '127.0.0.2/32', budgetMs: 600_000 }));
  });
  after(async () => {
    await gateway.close();
    await hostile.stop();
    await target.stop();
  });

  it('serves only its own browser: without the session secret, no request or tunnel leaves', async () => {
    const before = target.requests.length;
    for (const credentials of [undefined, basic('scrapegate', 'wrong'), basic('', ''), `${auth}x`, auth.toLowerCase()]) {
      expect((await viaGateway(gateway, target.url('/page'), credentials)).status, String(credentials)).to.equal(407);
      expect(await connectVia(gateway, `127.0.0.2:${target.port}`, credentials), String(credentials)).to.match(/^HTTP\/1\.1 407 /);
    }
    expect(target.requests.length, 'requests that reached the target without the secret').to.equal(before);
    expect((await viaGateway(gateway, target.url('/page'), auth)).status).to.equal(200);
    expect(await connectVia(gateway, `127.0.0.2:${target.port}`, auth)).to.equal('HTTP/1.1 200 Connection Established');
  });

  it(`relays or refuses ${cases.length} hostile answers without a throw reaching the process, and serves the next request after each #slow`, async () => {
    const outcomes = new Map<string, number>();
    for (let i = 0; i < cases.length; i++) {
      const { status } = await viaGateway(gateway, hostile.url(`/case/${i}`), auth, STALLING.has(cases[i].name) ? 1_000 : 5_000);
      outcomes.set(cases[i].name, status);
      if (i % 50 === 49 || i === cases.length - 1) {
        const sane = await viaGateway(gateway, hostile.url('/sane'), auth);
        expect(sane, `the request after "${cases[i].name}"`).to.deep.include({ status: 200 });
      }
    }
    // Statuses outside 100–599 are not HTTP: refused (the connection cut), never relayed.
    for (const status of [0, 1, 99, 600, 999]) expect(outcomes.get(`status ${status}`), `status ${status}`).to.equal(0);
    for (const status of [100, 200, 404, 599]) expect(outcomes.get(`status ${status}`), `status ${status}`).to.be.oneOf([status, 0]);
    expect(outcomes.get('status 200')).to.equal(200);
    // A 101 nobody asked for is no answer: the connection is cut at once, not left to the browser's deadline.
    expect(outcomes.get('101 without an upgrade')).to.equal(0);
    const upgrade = cases.findIndex((c) => c.name === '101 without an upgrade');
    const started = performance.now();
    expect((await viaGateway(gateway, hostile.url(`/case/${upgrade}`), auth, 10_000)).status).to.equal(0);
    expect(performance.now() - started, 'cut, not waited out').to.be.below(3_000);
    // A reason phrase Node would refuse to send is left out, not the page.
    expect(outcomes.get('reason byte 1')).to.equal(200);
    expect(outcomes.get('reason byte 233')).to.equal(200);
  });
});
