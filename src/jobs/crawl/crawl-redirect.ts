import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import type { CrawlRules } from './crawl-rules.js';
import type { CrawlPage, CrawlStore } from './crawl-store.js';
import type { LinkFilter } from './link-filter.js';
import { keyDigest, urlKey } from './url-key.js';

/** A crawl's page ended, by redirects, where the crawl may not go: it is not kept. */
export class RedirectOutOfScopeError extends InvalidValueError {
  constructor(finalUrl: string, why: string) {
    super('url', `the page redirects to ${finalUrl}, ${why}`, 'value_error.redirect');
  }
}

/** A crawl's page ended, by redirects, on a page the crawl had already met: it is kept once, not here. */
export class RedirectDuplicateError extends InvalidValueError {
  constructor(finalUrl: string) {
    super('url', `the page redirects to ${finalUrl}, which this crawl already has`, 'value_error.redirect');
  }
}

export interface RedirectCheckDeps {
  store: CrawlStore;
  filter: LinkFilter;
}

/**
 * Holds a crawl page's redirect target to what a link to it would be held to: the policy (already
 * judged as it was followed), the scope, the patterns and robots.txt; else the page fails with
 * RedirectOutOfScopeError. The start page is exempt: it is always crawled, wherever it leads.
 * The target's key then goes into the frontier (store.claim), so that the page reached by a
 * redirect and by a link is fetched and kept once: if another page had it first, this one fails
 * with RedirectDuplicateError. Thrown before the charge: a page not kept is not charged.
 */
export async function checkRedirect(deps: RedirectCheckDeps, page: CrawlPage, rules: CrawlRules, finalUrl: string, keyHash: string): Promise<void> {
  const choice = { ignoreQuery: rules.ignoreQueryParameters, similar: rules.deduplicateSimilarURLs };
  const own = urlKey(page.url, choice);
  const key = urlKey(finalUrl, choice);
  if (key === undefined || key === own) return;
  if (page.idx !== 0) {
    const { found, blocked } = await deps.filter.sort(rules, [{ url: finalUrl, depth: page.depth, foundOn: page.foundOn }], keyHash);
    if (blocked.length > 0) throw new RedirectOutOfScopeError(finalUrl, "which the site's robots.txt does not allow");
    if (found.length === 0) throw new RedirectOutOfScopeError(finalUrl, "outside the crawl's scope or patterns");
  }
  const claimed = await deps.store.claim(page.jobId, { url: finalUrl, digest: keyDigest(key), depth: page.depth, foundOn: page.url }, Date.now());
  if (!claimed) throw new RedirectDuplicateError(finalUrl);
}
