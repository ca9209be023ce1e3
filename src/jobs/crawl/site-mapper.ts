import type { HtmlWorkers } from '../../content/html-work/html-workers.js';
import type { TargetPolicy } from '../../egress/target-policy/target-policy.js';
import { outcomeOf } from '../../scrape/outcome.js';
import type { Caller } from '../../scrape/scrape-service.js';
import type { FirecrawlDocuments } from '../firecrawl/firecrawl-documents.js';
import type { FirecrawlOptions } from '../firecrawl/firecrawl-options.js';
import { CrawlScope } from './crawl-scope.js';
import { followableLink } from './followable-link.js';
import type { RobotsBook } from './robots-book.js';
import type { SiteFiles } from './site-fetcher.js';
import { SITEMAP_LIMITS, sitemapUrls, type SitemapParser } from './sitemap-reader.js';
import { urlKey } from './url-key.js';

export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

export interface MapRequest {
  caller: Caller;
  url: string;
  search: string | undefined;
  sitemap: 'include' | 'skip' | 'only';
  includeSubdomains: boolean;
  ignoreQueryParameters: boolean;
  limit: number;
  timeoutMs: number;
  /** The pages' scrape options (links only). */
  options: FirecrawlOptions;
  /** The token robots.txt groups are matched for: the walk fetches no page robots.txt refuses it. */
  robotsAgent: string;
}

export interface SiteMapperDeps {
  documents: FirecrawlDocuments;
  robots: RobotsBook;
  files: SiteFiles;
  policy: TargetPolicy;
  /** Where a site's sitemaps are parsed (their `sitemapXml` task). */
  sitemapWorkers: HtmlWorkers;
}

/** Pages a map fetches at most, the start among them, when sitemaps and the start page give fewer URLs than asked. */
const WALK_PAGES = 5;
/** A page is not started with less time left than this. */
const PAGE_MIN_MS = 1_000;
/** Refusals of the key itself end the map; a page that fails does not. */
const KEY_REFUSALS = new Set(['invalid_key', 'ip_restricted', 'out_of_credits']);

/**
 * `work`'s value, or `late` once `deadline` has passed (the work goes on unheard: robots.txt and
 * sitemaps are not charged, and pages are cut by their own signal), so that the map answers on time.
 */
function byDeadline<T, L>(work: Promise<T>, deadline: number, late: L): Promise<T | L> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<L>((resolve) => (timer = setTimeout(() => resolve(late), Math.max(0, deadline - Date.now()))));
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

const TIME_UP = Symbol('time up');

/**
 * POST /v2/map: a site's URLs at once, within its timeout and limit. The sitemaps (robots.txt's
 * and /sitemap.xml, nested and gzipped), the start page's links, and when those are fewer than
 * the limit, the links of a few more of its pages (those the sitemaps did not list first; none
 * robots.txt refuses). One deadline, `timeoutMs`, holds robots.txt, the sitemaps, the start page
 * and the walk: when it passes, the map answers with what it has. Each page fetched is a scrape
 * charged as any (`cost`; a page cut by the deadline is not); robots.txt and sitemaps are not charged.
 */
export class SiteMapper {
  constructor(private readonly deps: SiteMapperDeps) {}

  async map(request: MapRequest): Promise<{ links: MapLink[]; cost: number }> {
    const deadline = Date.now() + request.timeoutMs;
    const start = new URL(request.url);
    const scope = new CrawlScope(start, { crawlEntireDomain: true, allowSubdomains: request.includeSubdomains, allowExternalLinks: false });
    const found = new Map<string, MapLink>();
    const add = (text: string, title?: string, description?: string): boolean => {
      const url = followableLink(text, this.deps.policy, scope);
      if (!url) return false;
      const key = urlKey(url.href, { ignoreQuery: request.ignoreQueryParameters, similar: true });
      if (key === undefined) return false;
      const known = found.get(key);
      if (known) {
        if (title !== undefined) known.title = title;
        if (description !== undefined) known.description = description;
        return false;
      }
      if (found.size >= request.limit) return false;
      found.set(key, { url: request.ignoreQueryParameters ? `${url.origin}${url.pathname}` : url.href, ...(title !== undefined ? { title } : {}), ...(description !== undefined ? { description } : {}) });
      return true;
    };
    const fromSitemap = new Set<string>();
    if (request.sitemap !== 'skip') {
      const robots = await byDeadline(this.deps.robots.rulesOf(start.href), deadline, undefined).catch(() => undefined);
      const parse: SitemapParser = async (input) => {
        const parsed = await byDeadline(this.deps.sitemapWorkers.run('sitemapXml', input, { key: request.caller.keyHash }), input.deadline, TIME_UP);
        if (parsed === TIME_UP) throw new Error('the map ran out of time');
        return parsed;
      };
      const urls = await sitemapUrls(this.deps.files, parse, start, robots?.sitemaps ?? [], {
        maxFiles: SITEMAP_LIMITS.files, maxUrls: request.limit, maxBytes: SITEMAP_LIMITS.bytes, deadline: request.sitemap === 'only' ? deadline : deadline - PAGE_MIN_MS,
      });
      for (const url of urls) if (add(url)) fromSitemap.add(url);
    }
    let cost = 0;
    if (request.sitemap !== 'only') cost = await this.walk(request, start, deadline, add, fromSitemap);
    return { links: ranked([...found.values()], request.search), cost };
  }

  /** The start page, then a few more whose links may add what the sitemaps lack: the pages' cost. */
  private async walk(request: MapRequest, start: URL, deadline: number, add: (url: string, title?: string, description?: string) => boolean, fromSitemap: Set<string>): Promise<number> {
    const queue = [start.href];
    const fetched = new Set<string>();
    let cost = 0;
    // A page still running at the deadline is cut (uncharged): the map answers on time.
    const timeUp = new AbortController();
    const timer = setTimeout(() => timeUp.abort(), Math.max(0, deadline - Date.now()));
    try {
      while (queue.length > 0 && fetched.size < WALK_PAGES && deadline - Date.now() > PAGE_MIN_MS) {
        const url = queue.shift()!;
        if (fetched.has(url)) continue;
        fetched.add(url);
        const robots = await byDeadline(this.deps.robots.rulesOf(url), deadline, TIME_UP).catch(() => undefined);
        if (robots === TIME_UP) break;
        if (robots && !robots.allows(url, request.robotsAgent)) continue;
        cost += await this.page(request, url, deadline, timeUp.signal, add, fromSitemap, queue);
      }
    } finally {
      clearTimeout(timer);
    }
    return cost;
  }

  /** One page of the walk: its links added (and queued), its cost; a failed page costs nothing. */
  private async page(
    request: MapRequest, url: string, deadline: number, cancelled: AbortSignal,
    add: (url: string, title?: string, description?: string) => boolean, fromSitemap: Set<string>, queue: string[],
  ): Promise<number> {
    try {
      const timeoutMs = Math.max(PAGE_MIN_MS, Math.min(request.options.timeoutMs, deadline - Date.now()));
      const made = await this.deps.documents.make({
        operation: 'firecrawlMap', caller: request.caller, url, options: { ...request.options, timeoutMs }, lastAttempt: true, discoverLinks: true, cancelled, background: false,
      });
      const { metadata } = made.document;
      add(metadata.url, metadata.title, metadata.description);
      add(url, metadata.title, metadata.description);
      for (const link of made.links ?? []) {
        const added = add(link);
        // Pages the sitemaps did not list are where unlisted URLs hide: walked first.
        if (added && !fromSitemap.has(link)) queue.unshift(link);
        else if (added) queue.push(link);
      }
      return made.cost;
    } catch (err) {
      if (KEY_REFUSALS.has(outcomeOf(err))) throw err;
      return 0;
    }
  }
}

/** With `search`: only links whose URL or title holds it (case-insensitive), those with it in the URL first. */
function ranked(links: MapLink[], search: string | undefined): MapLink[] {
  if (search === undefined || search.trim() === '') return links;
  const needle = search.trim().toLowerCase();
  const inUrl = links.filter((l) => l.url.toLowerCase().includes(needle));
  const inTitle = links.filter((l) => !l.url.toLowerCase().includes(needle) && (l.title ?? '').toLowerCase().includes(needle));
  return [...inUrl, ...inTitle];
}
