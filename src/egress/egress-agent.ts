import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { EgressContext } from './egress-context.js';
import { bareHost } from './target-policy.js';

type Created = (err: Error | null, stream: Duplex) => void;

/** Node's asynchronous createConnection: the stream arrives through `created` once dialled. */
function dialFor(egress: EgressContext, options: http.ClientRequestArgs, created: Created | undefined, wrap: (socket: Socket) => Duplex): undefined {
  const host = bareHost(String(options.hostname ?? options.host ?? ''));
  egress.dial(host, Number(options.port)).then(
    (socket) => created?.(null, wrap(socket)),
    (err: Error) => created?.(err, undefined as unknown as Duplex),
  );
  return undefined;
}

/** HTTP over the request's egress: every connection (redirects included) is dialled by it. */
class EgressHttpAgent extends http.Agent {
  constructor(private readonly egress: EgressContext) {
    super({ keepAlive: false });
  }

  override createConnection(options: http.ClientRequestArgs, created?: Created): undefined {
    return dialFor(this.egress, options, created, (socket) => socket);
  }
}

/** HTTPS over the request's egress: TLS (verified, SNI of the name) on the dialled stream. */
class EgressHttpsAgent extends https.Agent {
  constructor(private readonly egress: EgressContext) {
    super({ keepAlive: false });
  }

  override createConnection(options: https.RequestOptions, created?: Created): undefined {
    return dialFor(this.egress, options, created, (socket) =>
      tls.connect({ socket, servername: options.servername || undefined, ALPNProtocols: ['http/1.1'], rejectUnauthorized: options.rejectUnauthorized ?? true }),
    );
  }
}

/** got's `agent` option for one request. */
export function egressAgents(egress: EgressContext): { http: http.Agent; https: https.Agent } {
  return { http: new EgressHttpAgent(egress), https: new EgressHttpsAgent(egress) };
}
