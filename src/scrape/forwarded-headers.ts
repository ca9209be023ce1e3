import type { Cookie } from '../fetchers/fetcher.js';
import { parseCookieList } from './cookie-list.js';

const PREFIX = 'svc-';

/**
 * Never forwarded even when prefixed: hop-by-hop headers describe our connection, not the
 * target's; Host and Content-Length are the HTTP client's to set; Accept-Encoding must stay what
 * the client can decode; the API key must never reach a third party.
 */
const NEVER_FORWARDED = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'host', 'content-length', 'accept-encoding', 'x-api-key', 'expect', 'http2-settings',
]);

/**
 * The headers a caller asked to forward (`svc-Name: value` → `Name: value`). A forwarded Cookie
 * joins the `cookies` parameter, so both reach the target through one cookie jar.
 */
export function forwardedHeaders(rawHeaders: string[]): { headers: Record<string, string>; cookies: Cookie[] } {
  const headers: Record<string, string> = {};
  const cookies: Cookie[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const rawName = rawHeaders[i];
    if (rawName.length <= PREFIX.length || rawName.slice(0, PREFIX.length).toLowerCase() !== PREFIX) continue;
    const name = rawName.slice(PREFIX.length);
    const lower = name.toLowerCase();
    if (NEVER_FORWARDED.has(lower) || lower.startsWith('svc-') || lower.startsWith('original-header-')) continue;
    if (lower === 'cookie') {
      cookies.push(...parseCookieList(rawHeaders[i + 1]));
      continue;
    }
    headers[name] = rawHeaders[i + 1];
  }
  return { headers, cookies };
}
