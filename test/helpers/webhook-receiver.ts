import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
  /** The answer given (set by the handler through `answer`). */
  status?: number;
}

export type Answer = (req: Received, res: http.ServerResponse) => void;

/** A webhook receiver on loopback: records every request, answers as `handler` says (200 by default). */
export class WebhookReceiver {
  readonly received: Received[] = [];
  handler: Answer = (_r, res) => res.end('ok');
  private readonly server: http.Server;

  private constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.received.push(r);
        const write = res.writeHead.bind(res);
        res.writeHead = ((status: number, ...rest: unknown[]) => {
          r.status = status;
          return (write as (...a: unknown[]) => http.ServerResponse)(status, ...rest);
        }) as typeof res.writeHead;
        this.handler(r, res);
      });
    });
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Requests with this webhook-id, in arrival order. */
  of(webhookId: string): Received[] {
    return this.received.filter((r) => r.headers['webhook-id'] === webhookId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Verifies both signatures of a received request as a receiver would, written from the specs
 * with WebCrypto (not the service's node:crypto code): Standard Webhooks keyed with the secret's
 * decoded bytes over "{id}.{timestamp}.{body}", and Firecrawl's hex keyed with the secret string.
 */
export async function verifiesBoth(r: Received, secret: string): Promise<boolean> {
  const enc = new TextEncoder();
  const hmac = async (key: Uint8Array<ArrayBuffer>, data: string) => {
    const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return new Uint8Array(await crypto.subtle.sign('HMAC', k, enc.encode(data)));
  };
  const id = String(r.headers['webhook-id']);
  const ts = String(r.headers['webhook-timestamp']);
  if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const keyBytes: Uint8Array<ArrayBuffer> = Uint8Array.from(atob(secret.split('_')[1]), (c) => c.charCodeAt(0));
  const standard = btoa(String.fromCharCode(...(await hmac(keyBytes, `${id}.${ts}.${r.body}`))));
  const offered = String(r.headers['webhook-signature']).split(' ').map((s) => s.split(',')[1]);
  const firecrawl = [...(await hmac(enc.encode(secret), r.body))].map((b) => b.toString(16).padStart(2, '0')).join('');
  return offered.includes(standard) && r.headers['x-firecrawl-signature'] === `sha256=${firecrawl}`;
}
