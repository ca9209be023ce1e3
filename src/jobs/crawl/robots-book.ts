import { createRequire } from 'node:module';
import type parseRobots from 'robots-parser';
import type { SiteFiles } from './site-fetcher.js';

/** What robots.txt says of one origin, for the agent asked. */
export interface RobotsRules {
  allows(url: string, agent: string): boolean;
  /** Its Crawl-delay for the agent, in ms (undefined: none). */
  delayMs(agent: string): number | undefined;
  sitemaps: string[];
}

// robots-parser is CommonJS whose types say an ES default export: loaded as what it is, a function.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => ReturnType<typeof parseRobots.default>;

const ALLOW_ALL: RobotsRules = { allows: () => true, delayMs: () => undefined, sitemaps: [] };
/** A robots.txt is read up to this much (Google reads 500 KiB). */
const MAX_ROBOTS_BYTES = 512 * 1024;
const FETCH_MS = 10_000;
const KEEP_MS = 10 * 60_000;
const MAX_ORIGINS = 2_000;
/** A Crawl-delay above this is taken as this: a crawl still ends. */
const MAX_DELAY_MS = 60_000;

/**
 * robots.txt of every origin a crawl meets, parsed by robots-parser and kept ten minutes (per
 * instance; each instance reads a site's file at most once per ten minutes). No file, a 4xx, or a
 * file that cannot be fetched allows everything; a 5xx refuses everything for now, as Google
 * reads it (the site is in trouble: leave it alone).
 */
export class RobotsBook {
  private readonly kept = new Map<string, { at: number; rules: Promise<RobotsRules> }>();

  constructor(private readonly files: SiteFiles) {}

  /**
   * The origin's rules, read through `files` when not kept (a crawl's page passes its host's
   * gated files: gated-files.ts). A read that throws (the host's turn did not come) is not kept.
   */
  rulesOf(url: string, files: SiteFiles = this.files): Promise<RobotsRules> {
    const origin = new URL(url).origin;
    const now = Date.now();
    const hit = this.kept.get(origin);
    if (hit && now - hit.at < KEEP_MS) return hit.rules;
    if (this.kept.size >= MAX_ORIGINS) this.kept.delete(this.kept.keys().next().value as string);
    const rules = this.read(origin, files);
    const entry = { at: now, rules };
    this.kept.set(origin, entry);
    rules.catch(() => {
      if (this.kept.get(origin) === entry) this.kept.delete(origin);
    });
    return rules;
  }

  private async read(origin: string, files: SiteFiles): Promise<RobotsRules> {
    const file = await files.get(`${origin}/robots.txt`, FETCH_MS);
    if (!file || (file.status >= 400 && file.status < 500)) return ALLOW_ALL;
    if (file.status >= 500) return { allows: () => false, delayMs: () => undefined, sitemaps: [] };
    const robots = robotsParser(`${origin}/robots.txt`, file.body.subarray(0, MAX_ROBOTS_BYTES).toString('utf8'));
    return {
      allows: (url, agent) => robots.isAllowed(url, agent) !== false,
      delayMs: (agent) => {
        const seconds = robots.getCrawlDelay(agent);
        return seconds === undefined || !Number.isFinite(seconds) || seconds <= 0 ? undefined : Math.min(MAX_DELAY_MS, Math.round(seconds * 1000));
      },
      sitemaps: robots.getSitemaps().slice(0, 50),
    };
  }
}
