import { isIP } from 'node:net';
import { TargetForbiddenError } from '../fetch-errors.js';
import { bareHost, defaultPort } from '../host-port.js';
import type { TargetPolicy } from './target-policy.js';

/** DNS's limit on a name (RFC 1035). */
const MAX_HOST_CHARS = 253;
const MAX_URL_CHARS = 8192;

/**
 * Why a URL (a batch's, a crawl's or a map's start, a link a crawl or a map met) cannot be
 * scraped, as far as it can be told without a socket: not an absolute http(s) URL, a host too long, or an address the target policy refuses (loopback, private,
 * link-local, the service's own ports…). A host name is resolved (and its addresses judged)
 * when it is fetched, so that 50,000 URLs cost no 50,000 lookups here; a name that points where
 * the policy forbids fails then, uncharged. Undefined: it may be.
 */
export function urlRefusal(text: string, policy: TargetPolicy): string | undefined {
  if (text.length > MAX_URL_CHARS) return `longer than ${MAX_URL_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not an absolute URL';
  }
  try {
    policy.checkScheme(url);
  } catch (err) {
    if (err instanceof TargetForbiddenError) return err.reason;
    throw err;
  }
  if (url.hostname.length > MAX_HOST_CHARS) return `its host is longer than ${MAX_HOST_CHARS} characters`;
  const bare = bareHost(url.hostname);
  if (isIP(bare) === 0) return undefined;
  return policy.addresses.decide(bare, defaultPort(url))?.text;
}
