import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { bareHost } from './host-port.js';

type Created = (err: Error | null, stream: Duplex) => void;

/** Opens a checked TCP stream to a target (EgressContext.dial, or the shared direct dialler). */
export type Dial = (host: string, port: number) => Promise<Socket>;

export interface HttpAgents {
  http: http.Agent;
  https: https.Agent;
}

/** Idle kept-alive connections are closed after this long. */
const IDLE_MS = 15_000;

function agentOptions(keepAlive: boolean): http.AgentOptions {
  return { keepAlive, timeout: keepAlive ? IDLE_MS : undefined, scheduling: 'lifo' };
}

/** Node's asynchronous createConnection: the stream arrives through `created` once dialled. */
function dialFor(dial: Dial, options: http.ClientRequestArgs, created: Created | undefined, wrap: (socket: Socket) => Duplex): undefined {
  const host = bareHost(String(options.hostname ?? options.host ?? ''));
  dial(host, Number(options.port)).then(
    (socket) => created?.(null, wrap(socket)),
    (err: Error) => created?.(err, undefined as unknown as Duplex),
  );
  return undefined;
}

/** HTTP over the egress: every connection (redirects included) is dialled by it. */
class EgressHttpAgent extends http.Agent {
  constructor(
    private readonly dial: Dial,
    keepAlive: boolean,
  ) {
    super(agentOptions(keepAlive));
  }

  override createConnection(options: http.ClientRequestArgs, created?: Created): undefined {
    return dialFor(this.dial, options, created, (socket) => socket);
  }
}

/** HTTPS over the egress: TLS (verified, SNI of the name) on the dialled stream. */
class EgressHttpsAgent extends https.Agent {
  constructor(
    private readonly dial: Dial,
    keepAlive: boolean,
  ) {
    super(agentOptions(keepAlive));
  }

  override createConnection(options: https.RequestOptions, created?: Created): undefined {
    return dialFor(this.dial, options, created, (socket) =>
      tls.connect({ socket, servername: options.servername || undefined, ALPNProtocols: ['http/1.1'], rejectUnauthorized: options.rejectUnauthorized ?? true }),
    );
  }
}

/** got's `agent` option: one request's (keepAlive false), or shared by all direct requests. */
export function egressAgents(dial: Dial, keepAlive: boolean): HttpAgents {
  return { http: new EgressHttpAgent(dial, keepAlive), https: new EgressHttpsAgent(dial, keepAlive) };
}
