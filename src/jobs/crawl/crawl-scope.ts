import { getDomain } from 'tldts';

/** Which hosts and paths a crawl may go to, from its start URL. */
export interface ScopeChoice {
  /** Any path of the start's host(s), not only those under the start URL's path. */
  crawlEntireDomain: boolean;
  /** The other hosts of the start's registrable domain (by the public-suffix list). */
  allowSubdomains: boolean;
  /** Any host at all. */
  allowExternalLinks: boolean;
}

/** A host with its `www.` dropped: example.com and www.example.com are one site. */
const siteHost = (host: string): string => (host.startsWith('www.') ? host.slice(4) : host);

/**
 * Whether a crawl that started at `start` may go to `url`. The start's host (www or not) by
 * default; with allowSubdomains, every host of its registrable domain (tldts, so `a.co.uk` and
 * `b.co.uk` are two sites, `docs.example.com` and `example.com` one); with allowExternalLinks,
 * any. Without crawlEntireDomain, only paths under the start URL's folder, on any allowed host.
 * An address has no registrable domain: only itself.
 */
export class CrawlScope {
  private readonly startHost: string;
  private readonly domain: string | null;
  private readonly prefix: string;

  constructor(start: URL, private readonly choice: ScopeChoice) {
    this.startHost = siteHost(start.hostname);
    this.domain = getDomain(start.hostname, { allowPrivateDomains: true });
    const path = start.pathname;
    // The start's folder: /docs/intro lets /docs/… in, /docs/ too; / lets everything in.
    this.prefix = path.endsWith('/') ? path : path.slice(0, path.lastIndexOf('/') + 1);
  }

  allows(url: URL): boolean {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (!this.hostAllowed(url.hostname)) return false;
    if (this.choice.crawlEntireDomain || (this.choice.allowExternalLinks && siteHost(url.hostname) !== this.startHost)) return true;
    return url.pathname.startsWith(this.prefix) || `${url.pathname}/` === this.prefix;
  }

  private hostAllowed(hostname: string): boolean {
    if (this.choice.allowExternalLinks) return true;
    if (siteHost(hostname) === this.startHost) return true;
    return this.choice.allowSubdomains && this.domain !== null && getDomain(hostname, { allowPrivateDomains: true }) === this.domain;
  }
}
