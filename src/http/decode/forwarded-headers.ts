import type { Cookie } from '../../engines/scrape-request.js';
import { parseCookieList } from './cookie-list.js';
import { checkCookie, checkForwardedCount, checkForwardedHeader } from './header-values.js';

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
 * joins the `cookies` parameter, so both reach the target through one cookie jar. A value that
 * is not plain visible ASCII, or too many or too long headers, are the caller's invalid values.
 */
export function forwardedHeaders(rawHeaders: string[]): { headers: Record<string, string>; cookies: Cookie[] } {
  const headers: Record<string, string> = {};
  const cookies: Cookie[] = [];
  let count = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const rawName = rawHeaders[i];
    if (rawName.length <= PREFIX.length || rawName.slice(0, PREFIX.length).toLowerCase() !== PREFIX) continue;
    const value = rawHeaders[i + 1];
    checkForwardedCount(++count);
    checkForwardedHeader(rawName, value);
    const name = rawName.slice(PREFIX.length);
    const lower = name.toLowerCase();
    if (NEVER_FORWARDED.has(lower) || lower.startsWith('svc-') || lower.startsWith('original-header-')) continue;
    if (lower === 'cookie') {
      for (const c of parseCookieList(value)) {
        checkCookie(c.name, c.value, { header: rawName });
        cookies.push(c);
      }
      continue;
    }
    headers[name] = value;
  }
  return { headers, cookies };
}
