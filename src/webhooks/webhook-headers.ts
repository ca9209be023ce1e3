import type { SignedHeaders } from './webhook-signature.js';

/**
 * Headers a subscription may not set: the signatures, what frames the request (hop-by-hop,
 * Host, Content-Length, Content-Type) and what would talk to a proxy.
 */
const RESERVED: ReadonlySet<string> = new Set([
  'x-firecrawl-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature',
  'host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade',
  'expect', 'proxy-authorization', 'proxy-authenticate', 'proxy-connection', 'user-agent',
]);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const VALUE = /^[\t\x20-\x7e\x80-\xff]{0,4096}$/;
const MAX_HEADERS = 32;

export const WEBHOOK_USER_AGENT = 'scrapegate-webhooks/1';

/** The subscription's own headers that will be sent: names lowercased, reserved and malformed ones dropped, at most 32. */
export function subscriberHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (Object.keys(out).length >= MAX_HEADERS) break;
    if (!TOKEN.test(name) || RESERVED.has(lower) || typeof value !== 'string' || !VALUE.test(value)) continue;
    out[lower] = value;
  }
  return out;
}

/** One attempt's request headers: the subscriber's, then ours over them. */
export function attemptHeaders(subscriber: Record<string, string>, signed: SignedHeaders, bodyBytes: number): Record<string, string> {
  return { ...subscriberHeaders(subscriber), ...signed, 'content-type': 'application/json', 'content-length': String(bodyBytes), 'user-agent': WEBHOOK_USER_AGENT };
}
