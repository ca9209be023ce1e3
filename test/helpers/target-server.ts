import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
  /** Where the connection came from: a test proxy's exit address tells which proxy carried it. */
  remoteAddress: string;
}

type Route = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

export const PAGE_HTML =
  '<!doctype html><html><head><title>Target</title><style>.x{color:red}</style><script>var hidden = "no";</script></head>' +
  '<body><h1>Hello target</h1><p>First <b>para</b>graph.</p><div>Block two</div><ul><li>one</li><li>two</li></ul></body></html>';

/** A local target that records every request it receives, with routes for each behaviour under test. */
export class TargetServer {
  readonly requests: RecordedRequest[] = [];
  private readonly server: http.Server;
  private readonly routes = new Map<string, Route>();
  private readonly hanging = new Set<ServerResponse>();
  port = 0;

  /** `host`: the loopback address to listen on (127.0.0.2 for tests with the target policy on). */
  constructor(readonly host = '127.0.0.1') {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.requests.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          rawHeaders: req.rawHeaders,
          body,
          remoteAddress: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
        });
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const route = this.routes.get(path);
        if (!route) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('no such route');
          return;
        }
        route(req, res, body);
      });
    });
    this.defaultRoutes();
  }

  get origin(): string {
    return `http://${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}`;
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  /** WebSocket handshakes (HTTP upgrades) are recorded and refused. */
  onUpgrade(listener: (req: IncomingMessage) => void): void {
    this.server.on('upgrade', (req: IncomingMessage, socket: import('node:stream').Duplex) => {
      listener(req);
      socket.destroy();
    });
  }

  route(path: string, handler: Route): void {
    this.routes.set(path, handler);
  }

  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((r) => new URL(r.url, 'http://x').pathname === path);
  }

  /**
   * Without `port`, a free one below the kernel's ephemeral range (32768 and up): the service's
   * own listeners (API, gateways, drivers, a Grid) take ephemeral ports, and a target on another
   * loopback address that drew the same number would be refused as scrapegate's own.
   */
  async start(port?: number): Promise<this> {
    for (let attempt = 0; ; attempt++) {
      const chosen = port ?? 20_000 + Math.floor(Math.random() * 12_000);
      try {
        await new Promise<void>((resolve, reject) => {
          const failed = (err: Error) => reject(err);
          this.server.once('error', failed);
          this.server.listen(chosen, this.host, () => {
            this.server.off('error', failed);
            resolve();
          });
        });
        break;
      } catch (err) {
        if (port !== undefined || (err as { code?: string }).code !== 'EADDRINUSE' || attempt >= 50) throw err;
      }
    }
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private defaultRoutes(): void {
    this.route('/page', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-target': 'yes', 'set-cookie': ['session=abc123; Path=/', 'theme=dark; Path=/'] });
      res.end(PAGE_HTML);
    });
    this.route('/echo', (req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, headers: req.headers, body: body.toString('utf8') }));
    });
    this.route('/status', (req, res) => {
      const code = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('code') ?? '200');
      res.writeHead(code, { 'content-type': 'text/plain' }).end(`status ${code}`);
    });
    this.route('/redirect', (_req, res) => void res.writeHead(302, { location: '/page' }).end());
    this.route('/loop', (_req, res) => void res.writeHead(302, { location: '/loop' }).end());
    this.route('/slow', (req, res) => {
      const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms') ?? '1000');
      const t = setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('slow done'), ms);
      res.on('close', () => clearTimeout(t));
    });
    this.route('/hang', (_req, res) => {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
    });
    this.route('/big', (req, res) => {
      const bytes = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('bytes') ?? '1000');
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(bytes, 0x61));
    });
    this.route('/bomb', (_req, res) => {
      // 64 MiB of zeros compress to about 64 KiB.
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(64 * 1024 * 1024)));
    });
    this.route('/binary', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from([0, 1, 2, 253, 254, 255]));
    });
    this.route('/latin1', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' }).end(Buffer.from('<p>caf\xe9</p>', 'latin1'));
    });
  }
}
