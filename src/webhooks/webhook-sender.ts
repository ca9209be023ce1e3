import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { connectDirect } from '../egress/direct-connect.js';
import { egressAgents, type Dial } from '../egress/egress-agent.js';
import { bareHost } from '../egress/host-port.js';
import type { CheckedWebhook } from './webhook-policy.js';

/** What is read of a receiver's answer, then discarded: its body means nothing to the sender. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SentAttempt {
  status: number;
  retryAfter: string | undefined;
}

/**
 * TLS over a checked connection, the certificate verified against the URL's host, a name or an
 * IP address alike (SNI only for a name).
 */
class CheckedHttpsAgent extends https.Agent {
  constructor(private readonly dial: Dial) {
    super({ keepAlive: false });
  }

  override createConnection(options: https.RequestOptions, created?: (err: Error | null, stream: Duplex) => void): undefined {
    const host = bareHost(String(options.hostname ?? options.host ?? ''));
    this.dial(host, Number(options.port)).then(
      (socket: Socket) => created?.(null, tls.connect({ socket, host, servername: isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] })),
      (err: Error) => created?.(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

/** An attempt that got no HTTP answer: `reason` says why (timeout, refused, tls…). */
export class AttemptFailedError extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
    this.name = 'AttemptFailedError';
  }
}

/**
 * One POST to the checked addresses of a webhook, within `timeoutMs` from connecting to the last
 * byte read: no redirect is followed (the caller judges a 3xx), at most 64 KiB of the answer is
 * read, and the connection is closed after (no pool: each attempt dials afresh, checked afresh).
 */
export function sendAttempt(target: CheckedWebhook, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SentAttempt> {
  const started = Date.now();
  const remaining = () => timeoutMs - (Date.now() - started);
  const timedOut = () => new AttemptFailedError('timeout', `no answer within ${timeoutMs} ms`);
  const dial: Dial = (_host, port) => connectDirect(target.addresses, port, remaining, timedOut);
  const secure = target.url.protocol === 'https:';
  return new Promise<SentAttempt>((resolve, reject) => {
    let done = false;
    const end = (err: Error | undefined, value?: SentAttempt) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      if (err) reject(err);
      else resolve(value!);
    };
    const options: https.RequestOptions = {
      method: 'POST',
      host: bareHost(target.url.hostname),
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      headers,
      agent: secure ? new CheckedHttpsAgent(dial) : egressAgents(dial, false).http,
    };
    const req = (secure ? https : http).request(options, (res) => {
      let read = 0;
      const answer: SentAttempt = { status: res.statusCode ?? 0, retryAfter: headerText(res.headers['retry-after']) };
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= MAX_RESPONSE_BYTES) end(undefined, answer);
      });
      res.on('end', () => end(undefined, answer));
      res.on('error', () => end(undefined, answer));
    });
    const timer = setTimeout(() => end(timedOut()), timeoutMs);
    req.on('error', (err: Error) => end(err instanceof AttemptFailedError ? err : new AttemptFailedError('unreachable', err.message)));
    req.end(body);
  });
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
