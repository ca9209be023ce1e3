import { z } from 'zod';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';

/** Patterns a crawl takes at most, each of at most this many characters (Firecrawl's caps are wider; these are plenty). */
export const MAX_PATTERNS = 100;
export const MAX_PATTERN_CHARS = 1000;

/**
 * What a crawl follows, as validated at submission and stored with it (crawls.rules, JSON):
 * decoded again by every page's worker, so nothing is decided twice.
 */
export const crawlRulesSchema = z.object({
  startUrl: z.string(),
  limit: z.number().int().min(1),
  maxDiscoveryDepth: z.number().int().min(0).nullable(),
  includePaths: z.array(z.string().max(MAX_PATTERN_CHARS)).max(MAX_PATTERNS),
  excludePaths: z.array(z.string().max(MAX_PATTERN_CHARS)).max(MAX_PATTERNS),
  regexOnFullURL: z.boolean(),
  crawlEntireDomain: z.boolean(),
  allowSubdomains: z.boolean(),
  allowExternalLinks: z.boolean(),
  sitemap: z.enum(['include', 'skip', 'only']),
  ignoreRobotsTxt: z.boolean(),
  ignoreQueryParameters: z.boolean(),
  deduplicateSimilarURLs: z.boolean(),
  /** `delay`, in ms: one request at a time to a host, this long apart. Null: robots.txt's Crawl-delay, else the host cap. */
  delayMs: z.number().int().min(0).nullable(),
  /** The token robots.txt groups are matched for: the crawl's own User-Agent header, else `scrapegate`. */
  robotsAgent: z.string(),
});

export type CrawlRules = z.infer<typeof crawlRulesSchema>;

export function decodeRules(stored: string): CrawlRules {
  return crawlRulesSchema.parse(JSON.parse(stored));
}

/**
 * Every pattern compiles, or the request is refused naming it (`includePaths.2`): a pattern is
 * never dropped silently. Compiling is linear in the pattern; only matching can explode, and that
 * runs in a worker with a deadline (link-filter.ts).
 */
export function checkPatterns(param: 'includePaths' | 'excludePaths', patterns: string[]): void {
  if (patterns.length > MAX_PATTERNS) throw new InvalidValueError(param, `at most ${MAX_PATTERNS} patterns`, 'value_error.list.max_items');
  patterns.forEach((pattern, i) => {
    if (pattern.length > MAX_PATTERN_CHARS) throw new InvalidValueError(`${param}.${i}`, `a pattern has at most ${MAX_PATTERN_CHARS} characters`, 'value_error.any_str.max_length');
    try {
      new RegExp(pattern);
    } catch (err) {
      throw new InvalidValueError(`${param}.${i}`, `not a valid regular expression: ${(err as Error).message}`, 'value_error.regex');
    }
  });
}
