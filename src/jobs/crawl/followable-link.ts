import type { TargetPolicy } from '../../egress/target-policy/target-policy.js';
import { urlRefusal } from '../../egress/target-policy/url-refusal.js';
import type { CrawlScope } from './crawl-scope.js';

/**
 * A link a page gave (absolute: the HTML work resolved it against the page), as a crawl or a map
 * may follow it: its fragment dropped, not refused by the target policy's decision without a
 * socket (urlRefusal: the scheme, its length, an address it names; a name is judged when it is
 * fetched), and within the scope. Undefined: not followed. A link to 169.254.169.254 or to the
 * service's own port leads nowhere; the crawl or map goes on.
 */
export function followableLink(text: string, policy: TargetPolicy, scope: CrawlScope): URL | undefined {
  if (urlRefusal(text, policy) !== undefined) return undefined;
  const url = new URL(text);
  url.hash = '';
  return scope.allows(url) ? url : undefined;
}
