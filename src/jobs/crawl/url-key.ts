import { createHash } from 'node:crypto';

/** How far two spellings of a URL count as one page. */
export interface KeyChoice {
  /** URLs that differ only by their query are one page. */
  ignoreQuery: boolean;
  /** www and non-www, http and https, and index pages are one page too. */
  similar: boolean;
}

const INDEX_PAGE = /\/index\.(?:html?|php|aspx?)$/i;

/**
 * The key a crawl dedupes on: lowercase scheme and host (the URL parser does both), no fragment,
 * the default port dropped, the query sorted (or gone), no trailing slash. With `similar`, the
 * scheme and a leading `www.` are dropped and `/index.html` is its folder. Undefined: not an
 * absolute http(s) URL.
 */
export function urlKey(text: string, choice: KeyChoice): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  let host = url.host;
  let path = url.pathname;
  if (choice.similar) {
    if (host.startsWith('www.')) host = host.slice(4);
    // Once, after the slashes: /docs/index.html/ is /docs too, and nothing is stripped twice.
    path = trimSlashes(path).replace(INDEX_PAGE, '/');
  }
  path = trimSlashes(path);
  let query = '';
  if (!choice.ignoreQuery && url.search.length > 1) {
    const params = [...url.searchParams.entries()].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
    query = `?${new URLSearchParams(params).toString()}`;
  }
  const scheme = choice.similar ? '' : url.protocol;
  return `${scheme}//${host}${path}${query}`;
}

/**
 * The path without its trailing slashes ("/" stays): one pass back from the end. A regex such as
 * /\/+$/ retries from every slash of a run that does not end the path, quadratic in a hostile
 * path (20,000 slashes then a letter: a second per key).
 */
function trimSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end--;
  return end === path.length ? path : path.slice(0, end);
}

/** The key as stored: a fixed-size digest, so that a unique index holds it whatever the URL's length. */
export function keyDigest(key: string): string {
  return createHash('sha1').update(key).digest('hex');
}
