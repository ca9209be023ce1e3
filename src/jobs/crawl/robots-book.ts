import { createRequire } from 'node:module';
import type parseRobots from 'robots-parser';
import type { SiteFiles } from './site-fetcher.js';
import { SITEMAP_LIMITS } from './sitemap-reader.js';

/** What robots.txt says of one origin, for the agent asked. */
export interface RobotsRules {
  allows(url: string, agent: string): boolean;
  /** Its Crawl-delay for the agent, in ms (undefined: none). */
  delayMs(agent: string): number | undefined;
  sitemaps: string[];
  /**
   * robots.txt could not be read for now (a 5xx, no answer, larger than MAX_ROBOTS_BYTES): nothing
   * is allowed, and the rules are read again within UNAVAILABLE_KEEP_MS. A crawl's page retries
   * later rather than take this as the site's answer (crawl-scraper.ts).
   */
  unavailable: boolean;
}

// robots-parser is CommonJS whose types say an ES default export: loaded as what it is, a function.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => ReturnType<typeof parseRobots.default>;

const ALLOW_ALL: RobotsRules = { allows: () => true, delayMs: () => undefined, sitemaps: [], unavailable: false };
const UNAVAILABLE: RobotsRules = { allows: () => false, delayMs: () => undefined, sitemaps: [], unavailable: true };
/** A robots.txt is read up to this much (Google reads 500 KiB): a larger one is not fetched whole. */
export const MAX_ROBOTS_BYTES = 512 * 1024;
/** Rules (Allow/Disallow lines) kept at most, each of at most this many characters: robots-parser's work stays bounded. */
export const MAX_ROBOTS_RULES = 1_000;
export const MAX_ROBOTS_RULE_CHARS = 512;
const FETCH_MS = 10_000;
const KEEP_MS = 10 * 60_000;
/** Unavailable rules are kept this long: the site is asked again soon, not after the crawl. */
const UNAVAILABLE_KEEP_MS = 60_000;
const MAX_ORIGINS = 2_000;
/** A Crawl-delay above this is taken as this: a crawl still ends. */
const MAX_DELAY_MS = 60_000;

/**
 * robots.txt of every origin a crawl meets, parsed by robots-parser and kept ten minutes (per
 * instance; each instance reads a site's file at most once per ten minutes). No file (a 4xx)
 * allows everything. A 5xx, no answer, or a file past 512 KiB refuses everything for now, as
 * Google reads it (the site is in trouble: leave it alone), and is kept one minute only: read
 * again, not taken as the site's answer for the crawl's life. At most 1,000 rules of at most 512
 * characters are read of a file.
 */
export class RobotsBook {
  private readonly kept = new Map<string, { at: number; keepMs: number; rules: Promise<RobotsRules> }>();

  constructor(private readonly files: SiteFiles) {}

  /**
   * The origin's rules, read through `files` when not kept (a crawl's page passes its host's
   * gated files: gated-files.ts). A read that throws (the host's turn did not come) is not kept.
   */
  rulesOf(url: string, files: SiteFiles = this.files): Promise<RobotsRules> {
    const origin = new URL(url).origin;
    const now = Date.now();
    const hit = this.kept.get(origin);
    if (hit && now - hit.at < hit.keepMs) return hit.rules;
    if (this.kept.size >= MAX_ORIGINS) this.kept.delete(this.kept.keys().next().value as string);
    const rules = this.read(origin, files);
    const entry = { at: now, keepMs: KEEP_MS, rules };
    this.kept.set(origin, entry);
    rules.then(
      (read) => void (read.unavailable && (entry.keepMs = UNAVAILABLE_KEEP_MS)),
      () => {
        if (this.kept.get(origin) === entry) this.kept.delete(origin);
      },
    );
    return rules;
  }

  private async read(origin: string, files: SiteFiles): Promise<RobotsRules> {
    const file = await files.get(`${origin}/robots.txt`, FETCH_MS, MAX_ROBOTS_BYTES);
    if (!file || file.status >= 500) return UNAVAILABLE;
    if (file.status >= 400) return ALLOW_ALL;
    const robots = robotsParser(`${origin}/robots.txt`, boundedRobots(file.body.subarray(0, MAX_ROBOTS_BYTES).toString('utf8')));
    return {
      allows: (url, agent) => robots.isAllowed(url, agent) !== false,
      delayMs: (agent) => {
        const seconds = robots.getCrawlDelay(agent);
        return seconds === undefined || !Number.isFinite(seconds) || seconds <= 0 ? undefined : Math.min(MAX_DELAY_MS, Math.round(seconds * 1000));
      },
      sitemaps: robots.getSitemaps().slice(0, SITEMAP_LIMITS.files),
      unavailable: false,
    };
  }
}

const RULE_LINE = /^\s*(?:dis)?allow\s*:/i;

/**
 * The file's lines robots-parser is given: none longer than MAX_ROBOTS_RULE_CHARS (dropped, not
 * cut: a cut rule would mean another path), and no rule past the MAX_ROBOTS_RULES-th.
 */
export function boundedRobots(text: string): string {
  const kept: string[] = [];
  let rules = 0;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line.length > MAX_ROBOTS_RULE_CHARS) continue;
    if (RULE_LINE.test(line) && ++rules > MAX_ROBOTS_RULES) continue;
    kept.push(line);
  }
  return kept.join('\n');
}
