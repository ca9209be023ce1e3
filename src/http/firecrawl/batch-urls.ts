import { isIP } from 'node:net';
import { TargetForbiddenError } from '../../egress/fetch-errors.js';
import { bareHost, defaultPort } from '../../egress/host-port.js';
import type { TargetPolicy } from '../../egress/target-policy/target-policy.js';

/** DNS's limit on a name (RFC 1035). */
const MAX_HOST_CHARS = 253;
const MAX_URL_CHARS = 8192;

/**
 * Why a batch's URL cannot be scraped, as far as it can be told without a socket: not an absolute
 * http(s) URL, a host too long, or an address the target policy refuses (loopback, private,
 * link-local, the service's own ports…). A host name is resolved (and its addresses judged)
 * when its item runs, so that 50,000 URLs cost no 50,000 lookups here; a name that points where
 * the policy forbids fails its item, uncharged, and is listed by /errors. Undefined: it may be.
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

/** URLs judged between two turns of the event loop: 50,000 URLs take it 50 to 200 ms, in slices of a few. */
const SLICE = 1_000;

/**
 * A batch's URLs, sorted into those its items will scrape and those refused (in their order, as
 * sent). Judged a slice at a time, yielding to the event loop between slices, so that a batch of
 * 50,000 URLs never holds the other callers' requests for more than a few milliseconds.
 */
export async function sortUrls(urls: string[], policy: TargetPolicy): Promise<{ valid: string[]; invalid: Array<{ url: string; index: number; why: string }> }> {
  const valid: string[] = [];
  const invalid: Array<{ url: string; index: number; why: string }> = [];
  for (let index = 0; index < urls.length; index++) {
    if (index > 0 && index % SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const url = urls[index];
    const why = urlRefusal(url, policy);
    if (why === undefined) valid.push(url);
    else invalid.push({ url, index, why });
  }
  return { valid, invalid };
}
