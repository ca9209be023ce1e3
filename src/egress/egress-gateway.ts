import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { EgressError, TargetForbiddenError } from '../errors/engine-errors.js';
import type { OwnPorts } from './address-policy.js';
import type { EgressContext } from './egress-context.js';
import { egressFailure } from './egress-failures.js';
import { bareHost, defaultPort } from './target-policy.js';

/** Headers of the browser↔gateway hop, never passed on to the target. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'upgrade']);

function passOn(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i].toLowerCase())) out.push(raw[i], raw[i + 1]);
  return out;
}

/** `host:port`, `[v6]:port` → its parts (a CONNECT request's target). */
function authority(text: string): { host: string; port: number } | undefined {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text);
  return m ? { host: bareHost(m[1]).toLowerCase(), port: Number(m[2]) } : undefined;
}

/**
 * One browser session's only way out: Chromium runs with `--proxy-server` pointing here, so every
 * navigation, redirect hop, subresource, fetch/XHR and WebSocket of a render arrives as a proxy
 * request and leaves through the render's EgressContext (checked addresses, the request's
 * upstream proxy with its credentials). Between renders nothing passes, and every connection of
 * the last render is cut, so a kept-alive tunnel can never carry one request's traffic through
 * another request's proxy. Switching upstream is a field, not a browser restart.
 */
export class EgressGateway {
  private egress: EgressContext | undefined;
  /** The render's kept-alive connections for plain-http requests (a page's subresources reuse them). */
  private agent: http.Agent | undefined;
  private readonly sockets = new Set<Duplex>();
  /** Why connections of the current render failed, by `host:port`: Chrome only sees a closed tunnel. */
  private readonly failures = new Map<string, EgressError>();

  private constructor(
    private readonly server: http.Server,
    private readonly ownPorts: OwnPorts,
    readonly url: string,
  ) {
    server.on('connection', (socket: Socket) => this.track(socket));
    server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => this.tunnel(req, client, head));
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => this.forward(req, res));
    server.on('upgrade', (_req: http.IncomingMessage, client: Duplex) => client.destroy());
  }

  static async open(host: string, ownPorts: OwnPorts): Promise<EgressGateway> {
    const server = http.createServer({ keepAlive: true });
    server.listen(0, host);
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    ownPorts.add(port);
    return new EgressGateway(server, ownPorts, `http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** From now on the session's traffic leaves through `egress` (one render). */
  serve(egress: EgressContext): void {
    this.finish();
    this.egress = egress;
    this.agent = new RenderAgent((host, port) => this.dial(host, port));
  }

  /** The render is over: refuse everything, cut every connection, forget its failures. */
  finish(): void {
    this.egress = undefined;
    this.agent?.destroy();
    this.agent = undefined;
    this.failures.clear();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /** What the gateway saw go wrong for this URL's host and port during the current render. */
  failureFor(url: string): EgressError | undefined {
    try {
      const u = new URL(url);
      return this.failures.get(`${bareHost(u.hostname).toLowerCase()}:${defaultPort(u)}`);
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    this.finish();
    this.ownPorts.delete(this.port);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  /** Dials for the current render; undefined (and the failure kept) when that fails or the render ends meanwhile. */
  private async dial(host: string, port: number): Promise<Socket | undefined> {
    const egress = this.egress;
    if (!egress) return undefined;
    try {
      const socket = await egress.dial(host, port);
      if (this.egress !== egress) {
        socket.destroy();
        return undefined;
      }
      this.track(socket);
      return socket;
    } catch (err) {
      const failure = err instanceof EgressError ? err : egressFailure('unreachable', err);
      if (this.egress === egress) this.failures.set(`${host}:${port}`, failure);
      return undefined;
    }
  }

  /** CONNECT (https, wss, and ws through a proxy): a raw tunnel to the checked address. */
  private tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): void {
    const target = authority(req.url ?? '');
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    void this.dial(target.host, target.port).then((upstream) => {
      if (!upstream) {
        const refused = this.failures.get(`${target.host}:${target.port}`) instanceof TargetForbiddenError;
        client.end(refused ? 'HTTP/1.1 403 Forbidden\r\n\r\n' : 'HTTP/1.1 502 Bad Gateway\r\n\r\n');
        return;
      }
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      upstream.once('close', () => client.destroy());
      client.once('close', () => upstream.destroy());
    });
  }

  /** A plain-http request in absolute form: sent on one of the render's checked connections, answered as received. */
  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (url.protocol !== 'http:') {
      res.writeHead(400).end();
      return;
    }
    const host = bareHost(url.hostname).toLowerCase();
    const port = defaultPort(url);
    if (!this.agent) return void req.socket.destroy();
    const upstream = http.request({
      host,
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers: passOn(req.rawHeaders),
      setHost: false,
      agent: this.agent,
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, passOn(answer.rawHeaders));
      answer.pipe(res);
      // Cut mid-answer: pipe() would leave Chrome waiting for the rest until the deadline. Cutting
      // its connection too makes Chrome fail the request at once, and the gateway says why.
      answer.once('error', (err) => {
        const key = `${host}:${port}`;
        if (!this.failures.has(key)) this.failures.set(key, egressFailure('reset', err));
        req.socket.destroy();
      });
    });
    // No answer at all: Chrome reports the request failed, and the gateway knows why.
    upstream.on('error', (err) => {
      const key = `${host}:${port}`;
      if (!this.failures.has(key)) this.failures.set(key, egressFailure(/HPE_HEADER_OVERFLOW/.test(String((err as NodeJS.ErrnoException).code)) ? 'headers' : 'reset', err));
      req.socket.destroy();
    });
    req.pipe(upstream);
  }
}

/** A keep-alive agent whose connections are dialled by the gateway (checked, through the render's route). */
class RenderAgent extends http.Agent {
  constructor(private readonly dialChecked: (host: string, port: number) => Promise<Socket | undefined>) {
    super({ keepAlive: true });
  }

  override createConnection(options: http.ClientRequestArgs, created?: (err: Error | null, stream: Duplex) => void): undefined {
    void this.dialChecked(String(options.host), Number(options.port)).then((socket) =>
      socket ? created?.(null, socket) : created?.(new Error('refused by the egress'), undefined as unknown as Duplex),
    );
    return undefined;
  }
}
