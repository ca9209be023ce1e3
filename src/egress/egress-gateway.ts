import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { EgressError, TargetForbiddenError, type FetchError } from './fetch-errors.js';
import type { OwnPorts } from './target-policy/own-ports.js';
import type { EgressContext } from './egress-context.js';
import { egressFailure, fromParserError, invalidStatus } from './egress-failures.js';
import { relayAnswer } from './gateway-answer.js';
import { bareHost, defaultPort } from './host-port.js';

/** Headers of the browser↔gateway hop, never passed on to the target. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'upgrade']);

/** The host Chromium is sent to once at start, so that it learns the gateway's credentials (see BrowserSession). */
export const GATEWAY_PRIME_HOST = 'scrapegate-gateway.invalid';
const REALM = 'scrapegate-session';
const CHALLENGE = `HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="${REALM}"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`;

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

export interface GatewayCredentials {
  username: string;
  password: string;
}

/**
 * One browser session's only way out: Chromium runs with `--proxy-server` pointing here, so every
 * navigation, redirect hop, subresource, fetch/XHR and WebSocket of a render — of the page, its
 * iframes, popups and workers alike — arrives as a proxy request and leaves through the render's
 * EgressContext (checked addresses, the request's upstream proxy with its credentials). Between
 * renders nothing passes, and every connection of the last render is cut, so a kept-alive tunnel
 * can never carry one request's traffic through another request's proxy. Switching upstream is a
 * field, not a browser restart.
 *
 * Only its own Chromium may use it: every request must carry the session's secret credentials
 * (Chromium learns them once, at start), so no other process on this machine or the Grid's
 * network can ride a render's route, its proxy or its credentials.
 */
export class EgressGateway {
  readonly credentials: GatewayCredentials = { username: 'scrapegate', password: randomBytes(24).toString('base64url') };
  private readonly expected: Buffer;
  private egress: EgressContext | undefined;
  /** The render's kept-alive connections for plain-http requests (a page's subresources reuse them). */
  private agent: http.Agent | undefined;
  private readonly sockets = new Set<Duplex>();
  /** Why connections of the current render failed, by `host:port`: Chrome only sees a closed connection. */
  private readonly failures = new Map<string, FetchError>();

  private constructor(
    private readonly server: http.Server,
    private readonly ownPorts: OwnPorts,
    readonly url: string,
  ) {
    this.expected = Buffer.from(`Basic ${Buffer.from(`${this.credentials.username}:${this.credentials.password}`).toString('base64')}`);
    server.on('connection', (socket: Socket) => this.track(socket));
    server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => this.guard(() => this.tunnel(req, client, head), client));
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => this.guard(() => this.forward(req, res), req.socket));
    server.on('upgrade', (_req: http.IncomingMessage, client: Duplex) => client.destroy());
    server.on('clientError', (_err: Error, socket: Duplex) => socket.destroy());
  }

  static async open(host: string, ownPorts: OwnPorts): Promise<EgressGateway> {
    const server = http.createServer({ keepAlive: true });
    // Registered in the very tick it starts listening: no decision can see the port unprotected.
    server.once('listening', () => ownPorts.add((server.address() as AddressInfo).port));
    server.listen(0, host);
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
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
  failureFor(url: string): FetchError | undefined {
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

  /** Whatever a hostile peer makes one exchange throw ends that exchange, never the process. */
  private guard(work: () => void, socket: Duplex): void {
    try {
      work();
    } catch {
      socket.destroy();
    }
  }

  private authorized(req: http.IncomingMessage): boolean {
    const given = Buffer.from(req.headers['proxy-authorization'] ?? '');
    return given.length === this.expected.length && timingSafeEqual(given, this.expected);
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  private failed(host: string, port: number, failure: FetchError): void {
    const key = `${host}:${port}`;
    if (!this.failures.has(key)) this.failures.set(key, failure);
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
      if (this.egress === egress) this.failed(host, port, err instanceof EgressError ? err : egressFailure('unreachable', err));
      return undefined;
    }
  }

  /** CONNECT (https, wss, and ws through a proxy): a raw tunnel to the checked address. */
  private tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): void {
    if (!this.authorized(req)) return void client.end(CHALLENGE);
    const target = authority(req.url ?? '');
    if (!target) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    this.dial(target.host, target.port).then(
      (upstream) => {
        if (!upstream) {
          const refused = this.failures.get(`${target.host}:${target.port}`) instanceof TargetForbiddenError;
          client.end(refused ? 'HTTP/1.1 403 Forbidden\r\n\r\n' : 'HTTP/1.1 502 Bad Gateway\r\n\r\n');
          return;
        }
        if (client.destroyed) return void upstream.destroy();
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
        upstream.once('close', () => client.destroy());
        client.once('close', () => upstream.destroy());
      },
      () => client.destroy(),
    );
  }

  /** A plain-http request in absolute form: sent on one of the render's checked connections, answered as received. */
  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    res.on('error', () => req.socket.destroy());
    req.on('error', () => req.socket.destroy());
    if (!this.authorized(req)) {
      req.resume();
      return void res.writeHead(407, { 'proxy-authenticate': `Basic realm="${REALM}"`, connection: 'close' }).end();
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void res.writeHead(400).end();
    }
    if (url.protocol !== 'http:') return void res.writeHead(400).end();
    if (url.hostname === GATEWAY_PRIME_HOST) return void res.writeHead(204).end();
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
      // Cut mid-answer: pipe() would leave Chrome waiting for the rest until the deadline. Cutting
      // its connection too makes Chrome fail the request at once, and the gateway says why.
      answer.once('error', (err) => {
        this.failed(host, port, egressFailure('reset', err));
        req.socket.destroy();
      });
      const refused = relayAnswer(answer, res, passOn(answer.rawHeaders));
      if (refused) {
        this.failed(host, port, refused);
        answer.destroy();
        req.socket.destroy();
      }
    });
    // A 101 to a request that asked for no upgrade is no answer: Node gives it to 'upgrade' (and
    // without a listener drops it) instead of 'response' or 'error', and Chrome would wait for its
    // deadline. Refused like any status that is not an answer: the connection cut, the reason kept.
    upstream.on('upgrade', (_answer, socket: Duplex) => {
      socket.destroy();
      this.failed(host, port, invalidStatus(101));
      req.socket.destroy();
    });
    // No answer at all: Chrome reports the request failed, and the gateway knows why.
    upstream.on('error', (err) => {
      const overflow = (err as NodeJS.ErrnoException).code === 'HPE_HEADER_OVERFLOW';
      this.failed(host, port, fromParserError(err) ?? egressFailure(overflow ? 'headers' : 'reset', err));
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
    this.dialChecked(String(options.host), Number(options.port))
      .then((socket) => (socket ? created?.(null, socket) : created?.(new Error('refused by the egress'), undefined as unknown as Duplex)))
      .catch(() => undefined);
    return undefined;
  }
}
