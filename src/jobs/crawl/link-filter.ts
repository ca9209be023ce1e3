import type { HtmlWorkers } from '../../content/html-work/html-workers.js';
import type { TargetPolicy } from '../../egress/target-policy/target-policy.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import { CrawlScope } from './crawl-scope.js';
import type { CrawlRules } from './crawl-rules.js';
import type { FoundUrl } from './crawl-store.js';
import { followableLink } from './followable-link.js';
import type { RobotsBook } from './robots-book.js';
import { keyDigest, urlKey } from './url-key.js';

/** A link as met: where it points, its depth, the page it was on. */
export interface Candidate {
  url: string;
  depth: number;
  foundOn: string | undefined;
}

/** The crawl's patterns took longer than their budget on this page's links: they are the caller's to fix. */
export class PatternsTooCostlyError extends InvalidValueError {
  constructor() {
    super('includePaths', 'the includePaths and excludePaths patterns take too long to match (a pattern that backtracks catastrophically?)', 'value_error.regex');
  }
}

export interface LinkFilterDeps {
  policy: TargetPolicy;
  /** A worker pool of their own, whose tasks end past a short deadline: the patterns are the caller's. */
  patternWorkers: HtmlWorkers;
  robots: RobotsBook;
}

/**
 * Sorts the links a page gave into the URLs the crawl takes (allowed by the policy, in scope,
 * kept by the patterns, not yet met in this batch, each keyed for dedupe) and those robots.txt
 * refuses. The patterns are matched in a worker thread, never here.
 */
export class LinkFilter {
  constructor(private readonly deps: LinkFilterDeps) {}

  async sort(rules: CrawlRules, candidates: Candidate[], keyHash: string): Promise<{ found: FoundUrl[]; blocked: FoundUrl[] }> {
    const scope = new CrawlScope(new URL(rules.startUrl), rules);
    const choice = { ignoreQuery: rules.ignoreQueryParameters, similar: rules.deduplicateSimilarURLs };
    const seen = new Set<string>();
    const kept: Array<Candidate & { digest: string }> = [];
    for (const c of candidates) {
      const url = followableLink(c.url, this.deps.policy, scope);
      if (!url) continue;
      const key = urlKey(url.href, choice);
      if (key === undefined || seen.has(key)) continue;
      seen.add(key);
      kept.push({ ...c, url: url.href, digest: keyDigest(key) });
    }
    const matched = await this.patterns(rules, kept, keyHash);
    const found: FoundUrl[] = [];
    const blocked: FoundUrl[] = [];
    for (const c of matched) {
      const entry = { url: c.url, digest: c.digest, depth: c.depth, foundOn: c.foundOn };
      if (rules.ignoreRobotsTxt) {
        found.push(entry);
        continue;
      }
      const robots = await this.deps.robots.rulesOf(c.url);
      // robots.txt unreadable for now (a 5xx): the page's own attempt reads it again (crawl-scraper.ts).
      if (robots.unavailable || robots.allows(c.url, rules.robotsAgent)) found.push(entry);
      else blocked.push(entry);
    }
    return { found, blocked };
  }

  private async patterns<T extends { url: string }>(rules: CrawlRules, list: T[], keyHash: string): Promise<T[]> {
    if (list.length === 0 || (rules.includePaths.length === 0 && rules.excludePaths.length === 0)) return list;
    let keep: boolean[];
    try {
      keep = await this.deps.patternWorkers.run('urlPatterns', { urls: list.map((c) => c.url), include: rules.includePaths, exclude: rules.excludePaths, onFullUrl: rules.regexOnFullURL }, { key: keyHash });
    } catch (err) {
      if ((err as { outcome?: string }).outcome === 'too_costly') throw new PatternsTooCostlyError();
      throw err;
    }
    return list.filter((_, i) => keep[i]);
  }
}
