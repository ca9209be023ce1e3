import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/** One request the site answered: its host, path, and when it began and ended (ms, performance clock). */
export interface SiteHit {
  host: string;
  path: string;
  start: number;
  end: number;
}

export interface CrawlSiteOptions {
  pages: number;
  /** Links per page: page i links to pages fanout*i+1 … fanout*i+fanout. */
  fanout: number;
  /** robots.txt's Crawl-delay in seconds; undefined: none. */
  crawlDelay?: number;
  /** Pages listed only by the sitemap (no page links them). */
  orphans?: number;
  /** Pages of the tree the sitemap leaves out (found only by links). */
  unlisted?: number;
  /** Respond after this many ms. */
  pageMs?: number;
  /** Links every page also gives. */
  extraLinks?: string[];
  /** false: pages link their children only (a benchmark's site); true by default. */
  hostile?: boolean;
}

/**
 * A generated site on loopback for the crawl's proofs: `pages` pages in a tree of `fanout`, each
 * linking its children and the same hostile things — itself spelled five ways, a page robots.txt
 * disallows, a redirect loop, a second host (127.0.0.2), the metadata and a private address, the
 * service's own port, an endless calendar (?page=N), and pages that answer 429 with Retry-After
 * once. robots.txt names a sitemap index whose child is gzipped. `/go/…` redirects (to a tree
 * page, the second host, a disallowed page) for `extraLinks`. Every request is logged.
 */
export class CrawlSite {
  readonly hits: SiteHit[] = [];
  private inFlight = 0;
  /** The most requests in flight at once. */
  maxInFlight = 0;
  private readonly busyServed = new Set<string>();
  private server: http.Server | undefined;
  private second: http.Server | undefined;
  port = 0;
  ownPort = 0;

  constructor(private readonly o: CrawlSiteOptions) {}

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  /** Every page path the sitemap lists. */
  sitemapPaths(): string[] {
    const listed = Array.from({ length: this.o.pages - (this.o.unlisted ?? 0) }, (_, i) => `/p/${i}`);
    return [...Array.from({ length: this.o.orphans ?? 0 }, (_, i) => `/orphan/${i}`), ...listed];
  }

  async start(ownPort: number): Promise<this> {
    this.ownPort = ownPort;
    this.server = http.createServer((req, res) => this.answer(req, res));
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    this.second = http.createServer((req, res) => {
      this.hits.push({ host: '127.0.0.2', path: req.url ?? '', start: performance.now(), end: performance.now() });
      res.end('<html><body>second host</body></html>');
    });
    this.second.listen(this.port, '127.0.0.2');
    await once(this.second, 'listening').catch(() => undefined);
    return this;
  }

  async stop(): Promise<void> {
    for (const s of [this.server, this.second]) {
      s?.closeAllConnections();
      await new Promise<void>((resolve) => (s ? s.close(() => resolve()) : resolve()));
    }
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const hit: SiteHit = { host: '127.0.0.1', path: req.url ?? '', start: performance.now(), end: 0 };
    this.hits.push(hit);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('finish', () => {
      hit.end = performance.now();
      this.inFlight--;
    });
    res.on('close', () => {
      if (hit.end === 0) {
        hit.end = performance.now();
        this.inFlight--;
      }
    });
    const go = () => this.route(new URL(req.url ?? '/', this.base), res);
    if (this.o.pageMs) setTimeout(go, this.o.pageMs);
    else go();
  }

  private route(url: URL, res: http.ServerResponse): void {
    const path = url.pathname;
    const html = (body: string): void => void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>${path}</title></head><body>${body}</body></html>`);
    if (path === '/robots.txt') {
      const delay = this.o.crawlDelay === undefined ? '' : `Crawl-delay: ${this.o.crawlDelay}\n`;
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: /private/\n${delay}Sitemap: ${this.base}/sitemap-index.xml\n`);
      return;
    }
    if (path === '/sitemap-index.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' })
        .end(`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${this.base}/sitemap-1.xml.gz</loc></sitemap></sitemapindex>`);
      return;
    }
    if (path === '/sitemap-1.xml.gz') {
      const urls = this.sitemapPaths().map((p) => `<url><loc>${this.base}${p}</loc></url>`).join('');
      res.writeHead(200, { 'content-type': 'application/gzip' }).end(gzipSync(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`));
      return;
    }
    if (path === '/sitemap.xml') return void res.writeHead(404).end();
    // Redirects for extraLinks: to a page of the tree, to the second host, to a page robots.txt disallows.
    if (path.startsWith('/go/p/')) return void res.writeHead(302, { location: path.slice(3) }).end();
    if (path === '/go/away') return void res.writeHead(302, { location: `http://127.0.0.2:${this.port}/elsewhere` }).end();
    if (path === '/go/private') return void res.writeHead(302, { location: '/private/go' }).end();
    if (path.startsWith('/loop/')) return void res.writeHead(302, { location: path === '/loop/a' ? '/loop/b' : '/loop/a' }).end();
    if (path === '/cal') {
      const n = Number(url.searchParams.get('page') ?? '0');
      return html(`<a href="/cal?page=${n + 1}">next month</a>`);
    }
    if (path.startsWith('/busy/')) {
      if (!this.busyServed.has(path)) {
        this.busyServed.add(path);
        return void res.writeHead(429, { 'retry-after': '1' }).end('slow down');
      }
      return html('served after a 429');
    }
    if (path.startsWith('/orphan/') || path.startsWith('/private/')) return html('a page');
    const match = /^\/p\/(\d+)(?:\/|\/index\.html)?$/.exec(path);
    if (!match) return void res.writeHead(404).end();
    const i = Number(match[1]);
    if (i >= this.o.pages) return void res.writeHead(404).end();
    const children = Array.from({ length: this.o.fanout }, (_, k) => this.o.fanout * i + k + 1).filter((c) => c < this.o.pages);
    const tree = children.map((c) => `<a href="/p/${c}">p${c}</a>`);
    if (this.o.hostile === false) return html(tree.join(' '));
    const links = [
      ...tree,
      `<a href="/p/${i}/">self</a>`, `<a href="/p/${i}#top">self</a>`, `<a href="HTTP://127.0.0.1:${this.port}/p/${i}">self</a>`,
      `<a href="/p/${i}/index.html">self</a>`, `<a href="http://localhost:${this.port}/p/${i}">self</a>`,
      `<a href="/private/${i}">private</a>`, '<a href="/loop/a">loop</a>', `<a href="http://127.0.0.2:${this.port}/elsewhere">second host</a>`,
      '<a href="http://169.254.169.254/latest/meta-data/">metadata</a>', '<a href="http://10.0.0.1/admin">private</a>',
      `<a href="http://127.0.0.1:${this.ownPort}/v2/crawl/active">own</a>`, '<a href="/cal?page=1">calendar</a>',
      ...(i < 2 ? [`<a href="/busy/${i}">busy</a>`] : []),
      ...(this.o.extraLinks ?? []).map((href) => `<a href="${href}">extra</a>`),
    ];
    html(links.join(' '));
  }
}
