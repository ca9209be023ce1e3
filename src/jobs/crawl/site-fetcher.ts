import type { Egress } from '../../egress/egress.js';
import { PlainFetcher } from '../../engines/plain-fetcher.js';
import { USER_AGENT } from '../../engines/user-agent.js';
import { Deadline } from '../../time/deadline.js';

/** A site's file (robots.txt, a sitemap) as fetched: its status, final URL and bytes. */
export interface SiteFile {
  status: number;
  finalUrl: string;
  body: Buffer;
}

/** Fetches a site's own files for a crawl or a map: never charged, always through the target policy. */
export interface SiteFiles {
  /** Undefined: the file could not be fetched (refused, unreachable, larger than `maxBytes` or the fetcher's own cap, timed out). */
  get(url: string, timeoutMs: number, maxBytes?: number): Promise<SiteFile | undefined>;
}

export interface SiteFetcherOptions {
  /** A file larger than this (after decompression) is not read. */
  maxBytes: number;
  maxRedirects: number;
}

/**
 * robots.txt and sitemaps over the same way out as any scrape: a datacenter proxy when the
 * server has some, every address and every redirect checked by the target policy (egress/). A
 * refusal or a failure is no file: the crawl goes on as if there were none.
 */
export class SiteFetcher implements SiteFiles {
  /** One fetcher per byte cap asked for (robots.txt's and the sitemaps'): a few at most. */
  private readonly fetchers = new Map<number, PlainFetcher>();

  constructor(private readonly egress: Egress, private readonly options: SiteFetcherOptions) {}

  async get(url: string, timeoutMs: number, maxBytes?: number): Promise<SiteFile | undefined> {
    const cap = Math.min(maxBytes ?? this.options.maxBytes, this.options.maxBytes);
    let fetcher = this.fetchers.get(cap);
    if (!fetcher) {
      fetcher = new PlainFetcher({ maxBodyBytes: cap, maxRedirects: this.options.maxRedirects, userAgent: USER_AGENT });
      this.fetchers.set(cap, fetcher);
    }
    const deadline = new Deadline(timeoutMs);
    try {
      const target = new URL(url);
      this.egress.policy.checkScheme(target);
      const page = await fetcher.fetch(
        {
          url: target, method: 'GET', headers: {}, body: undefined, cookies: [], browser: false, returnPageSource: false, jsSnippet: undefined,
          waitForSelector: undefined, blockResources: [], proxy: { type: 'datacenter', country: undefined, sessionId: undefined }, timeoutMs, capture: undefined,
        },
        { deadline, egress: this.egress.open('datacenter', undefined, deadline), needs: { text: false, cookies: false, extras: false } },
      );
      return { status: page.status, finalUrl: page.finalUrl, body: page.body };
    } catch {
      return undefined;
    } finally {
      deadline.dispose();
    }
  }
}
