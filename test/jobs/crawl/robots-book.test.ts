import { expect } from 'chai';
import { RobotsBook } from '../../../src/jobs/crawl/robots-book.js';
import type { SiteFile, SiteFiles } from '../../../src/jobs/crawl/site-fetcher.js';

class Files implements SiteFiles {
  asked = 0;
  constructor(private readonly answer: SiteFile | undefined) {}
  async get(): Promise<SiteFile | undefined> {
    this.asked++;
    return this.answer;
  }
}

const file = (status: number, text: string): SiteFile => ({ status, finalUrl: 'http://site.test/robots.txt', body: Buffer.from(text) });

describe('robots.txt book', () => {
  it('obeys Disallow and Crawl-delay for the agent, names the sitemaps, and reads each origin once', async () => {
    const files = new Files(file(200, 'User-agent: *\nDisallow: /private/\nCrawl-delay: 0.5\nSitemap: http://site.test/map.xml\n\nUser-agent: scrapegate\nDisallow: /nobots/\n'));
    const book = new RobotsBook(files);
    const rules = await book.rulesOf('http://site.test/a');
    expect(rules.allows('http://site.test/private/x', 'otherbot')).to.equal(false);
    expect(rules.allows('http://site.test/nobots/x', 'scrapegate')).to.equal(false);
    expect(rules.allows('http://site.test/private/x', 'scrapegate')).to.equal(true);
    expect(rules.allows('http://site.test/public', 'otherbot')).to.equal(true);
    expect(rules.delayMs('otherbot')).to.equal(500);
    expect(rules.sitemaps).to.deep.equal(['http://site.test/map.xml']);
    await book.rulesOf('http://site.test/b');
    expect(files.asked).to.equal(1);
  });

  it('allows everything without a file, and nothing while the site answers 5xx', async () => {
    expect((await new RobotsBook(new Files(undefined)).rulesOf('http://site.test/')).allows('http://site.test/x', 'a')).to.equal(true);
    expect((await new RobotsBook(new Files(file(404, ''))).rulesOf('http://site.test/')).allows('http://site.test/x', 'a')).to.equal(true);
    expect((await new RobotsBook(new Files(file(503, ''))).rulesOf('http://site.test/')).allows('http://site.test/x', 'a')).to.equal(false);
  });

  it("reads through the files it is given (a page's gated ones), and keeps no read that threw (a host's turn that did not come)", async () => {
    const kept = new Files(file(200, 'User-agent: *\nDisallow: /private/\n'));
    const book = new RobotsBook(kept);
    let gated = 0;
    const busy: SiteFiles = {
      get: async () => {
        gated++;
        throw new Error('the host is busy');
      },
    };
    let failed = false;
    await book.rulesOf('http://site.test/a', busy).catch(() => (failed = true));
    expect(failed).to.equal(true);
    const rules = await book.rulesOf('http://site.test/a');
    expect(rules.allows('http://site.test/private/x', 'a')).to.equal(false);
    expect([gated, kept.asked]).to.deep.equal([1, 1]);
  });
});
