import { expect } from 'chai';
import { HtmlWorkers } from '../../../src/content/html-work/html-workers.js';
import { OwnPorts } from '../../../src/egress/target-policy/own-ports.js';
import type { CrawlRules } from '../../../src/jobs/crawl/crawl-rules.js';
import { LinkFilter, PatternsTooCostlyError } from '../../../src/jobs/crawl/link-filter.js';
import { RobotsBook } from '../../../src/jobs/crawl/robots-book.js';
import type { SiteFile, SiteFiles } from '../../../src/jobs/crawl/site-fetcher.js';
import { targetPolicy } from '../../helpers/egress.js';

/** Every robots.txt the filter asked for, over this file's tests. */
const asked: string[] = [];
/** robots.txt of every origin: /private/ refused. Nothing is fetched: the policy is judged on its decision alone. */
const files: SiteFiles = {
  get: async (url): Promise<SiteFile> => {
    asked.push(url);
    return { status: 200, finalUrl: '', body: Buffer.from('User-agent: *\nDisallow: /private/\n') };
  },
};

const rules = (over: Partial<CrawlRules> = {}): CrawlRules => ({
  startUrl: 'http://127.0.0.1:8080/', limit: 100, maxDiscoveryDepth: null, includePaths: [], excludePaths: [], regexOnFullURL: false, crawlEntireDomain: true,
  allowSubdomains: false, allowExternalLinks: false, sitemap: 'skip', ignoreRobotsTxt: false, ignoreQueryParameters: false, deduplicateSimilarURLs: true,
  delayMs: null, robotsAgent: 'scrapegate', ...over,
});

describe('crawl link filter', function () {
  this.timeout(30_000);
  const own = new OwnPorts();
  own.add(9999);
  const workers = new HtmlWorkers({ threads: 1, taskTimeoutMs: 1_000 });
  const filter = new LinkFilter({ policy: targetPolicy({ allowCidrs: '127.0.0.1/32', ownPorts: own }), patternWorkers: workers, robots: new RobotsBook(files) });
  after(() => workers.close());
  const at = (url: string) => ({ url, depth: 1, foundOn: 'http://127.0.0.1:8080/' });

  it('drops what the policy refuses, what is out of scope and repeats; sets robots-refused URLs apart', async () => {
    const sorted = await filter.sort(rules(), [
      at('http://127.0.0.1:8080/a'), at('http://127.0.0.1:8080/a/'), at('HTTP://127.0.0.1:8080/a#x'), at('http://169.254.169.254/latest/meta-data/'),
      at('http://10.0.0.1/'), at('http://127.0.0.1:9999/v2/crawl/active'), at('http://127.0.0.2:8080/b'), at('http://127.0.0.1:8080/private/c'), at('ftp://127.0.0.1/x'),
    ], 'key');
    expect(sorted.found.map((f) => f.url)).to.deep.equal(['http://127.0.0.1:8080/a']);
    expect(sorted.blocked.map((f) => f.url)).to.deep.equal(['http://127.0.0.1:8080/private/c']);
  });

  it('with allowExternalLinks, follows other hosts, while every hop still meets the target policy (judged on its decision alone)', async () => {
    const sorted = await filter.sort(rules({ allowExternalLinks: true, crawlEntireDomain: false }), [
      at('http://127.0.0.1:8080/a'), at('http://example.com/x'), at('https://docs.example.org/y#top'), at('http://example.com/private/z'),
      at('http://169.254.169.254/latest/meta-data/'), at('http://[fd00:ec2::254]/latest/meta-data/'), at('http://10.0.0.1/'), at('http://192.168.1.1:8443/'),
      at('http://[::1]/'), at('http://127.0.0.2:8080/b'), at('http://127.0.0.1:9999/v2/crawl/active'), at('http://0.0.0.0/'), at('file:///etc/passwd'),
    ], 'key');
    expect(sorted.found.map((f) => f.url)).to.deep.equal(['http://127.0.0.1:8080/a', 'http://example.com/x', 'https://docs.example.org/y']);
    expect(sorted.blocked.map((f) => f.url)).to.deep.equal(['http://example.com/private/z']);
    // Refused on the policy's decision before anything about them was read: the robots.txt of the
    // hosts followed were asked for, theirs not.
    expect(asked.map((url) => new URL(url).host)).to.include.members(['example.com', 'docs.example.org']);
    expect(asked.map((url) => new URL(url).host).filter((host) => !['127.0.0.1:8080', 'example.com', 'docs.example.org'].includes(host))).to.deep.equal([]);
  });

  it('matches patterns on the pathname, or the whole URL, in a worker', async () => {
    const links = [at('http://127.0.0.1:8080/docs/a'), at('http://127.0.0.1:8080/blog/b'), at('http://127.0.0.1:8080/docs/old/c')];
    const kept = await filter.sort(rules({ includePaths: ['^/docs/'], excludePaths: ['/old/'] }), links, 'key');
    expect(kept.found.map((f) => f.url)).to.deep.equal(['http://127.0.0.1:8080/docs/a']);
    const full = await filter.sort(rules({ includePaths: ['^http://127\\.0\\.0\\.1:8080/blog/'], regexOnFullURL: true }), links, 'key');
    expect(full.found.map((f) => f.url)).to.deep.equal(['http://127.0.0.1:8080/blog/b']);
  });

  it('ends a catastrophically backtracking pattern past its time, naming the patterns', async () => {
    const started = performance.now();
    const hostile = filter.sort(rules({ includePaths: ['(a+)+$'] }), [at(`http://127.0.0.1:8080/${'a'.repeat(40)}!`)], 'key');
    let refused: unknown;
    await hostile.catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(PatternsTooCostlyError);
    expect(performance.now() - started).to.be.below(10_000);
  });
});
