import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export type ProxyBehaviour = 'forward' | 'hang' | 'bad-gateway' | 'auth-required';

export interface ProxyConnect {
  target: string;
  user: string | undefined;
}

/**
 * A real upstream proxy on loopback (CONNECT tunnels, as scrapegate uses them) that leaves from an
 * exit address of its own (127.0.0.11, .12, …): the target sees which proxy carried a request by
 * the address it came from, as a real site sees a proxy's IP. It records every CONNECT with the
 * user name it was given, so a gateway-style proxy proves the country that was asked for.
 */
export class TestProxy {
  readonly connects: ProxyConnect[] = [];
  private readonly server: http.Server;
  private readonly open = new Set<Duplex>();
  private readonly tunnels = new Set<Duplex>();
  private frozen = false;
  port = 0;

  /** `tlsOptions`: an https:// proxy (the client speaks TLS to the proxy itself). */
  constructor(
    readonly exitAddress: string,
    public behaviour: ProxyBehaviour = 'forward',
    private readonly password?: string,
    tlsOptions?: { key: Buffer; cert: Buffer },
  ) {
    const refuse = (_req: IncomingMessage, res: http.ServerResponse) => void res.writeHead(405).end();
    this.server = tlsOptions ? https.createServer(tlsOptions, refuse) : http.createServer(refuse);
    this.scheme = tlsOptions ? 'https' : 'http';
    this.server.on(tlsOptions ? 'secureConnection' : 'connection', (s: net.Socket) => this.hold(s));
    this.server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => this.connect(req, client, head));
  }

  private readonly scheme: 'http' | 'https';

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** The proxy URL for PROXY_CONFIG, with credentials (a user template for gateway-style proxies). */
  url(user?: string): string {
    const auth = user ? `${user}:${this.password ?? 'secret'}@` : '';
    return `${this.scheme}://${auth}127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const s of this.open) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private hold(s: Duplex): void {
    this.open.add(s);
    s.once('close', () => this.open.delete(s));
    s.on('error', () => s.destroy());
  }

  /** Tunnels whose client (scrapegate) has not closed its end. */
  get openTunnels(): number {
    return this.tunnels.size;
  }

  /**
   * Hangs mid-stream, as a proxy whose process stops being scheduled: open tunnels carry no more
   * bytes either way and new CONNECTs get no answer. It still notices its clients closing, so a
   * test can tell whether scrapegate let go of every tunnel.
   */
  freeze(): void {
    this.frozen = true;
  }

  private connect(req: IncomingMessage, client: Duplex, head: Buffer): void {
    const auth = req.headers['proxy-authorization'];
    const [user, pass] = auth ? Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString('utf8').split(':') : [];
    this.connects.push({ target: req.url ?? '', user });
    if (this.behaviour === 'hang' || this.frozen) return;
    if (this.behaviour === 'bad-gateway') return void client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    if (this.behaviour === 'auth-required' || (this.password && pass !== this.password)) {
      return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
    }
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? '');
    if (!m) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const upstream = net.connect({ host: m[1], port: Number(m[2]), localAddress: this.exitAddress });
    this.hold(upstream);
    this.tunnels.add(client);
    client.once('close', () => {
      this.tunnels.delete(client);
      upstream.destroy();
    });
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      // Bytes are read and, once frozen, dropped (not paused): a closing peer is still seen.
      client.on('data', (d: Buffer) => void (this.frozen || upstream.write(d)));
      upstream.on('data', (d: Buffer) => void (this.frozen || client.write(d)));
      client.on('end', () => (this.frozen ? client.destroy() : upstream.end()));
      upstream.on('end', () => void (this.frozen || client.end()));
    });
    upstream.once('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    upstream.once('close', () => void (this.frozen || client.destroy()));
  }
}

/**
 * A port nothing listens on: a dead proxy, a refused target. Not an ephemeral one: the kernel
 * hands those out again, and a browser session started meanwhile may take it for its driver,
 * DevTools or gateway — which scrapegate then rightly refuses as its own (422).
 */
export async function closedPort(host = '127.0.0.1'): Promise<number> {
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * Math.max(1, (low || 32_768) - 20_000));
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host, port });
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
    });
    if (refused) return port;
  }
  throw new Error('no refused loopback port below the ephemeral range');
}
