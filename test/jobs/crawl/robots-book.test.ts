import { expect } from 'chai';
import { MAX_ROBOTS_BYTES, MAX_ROBOTS_RULES, RobotsBook } from '../../../src/jobs/crawl/robots-book.js';
import type { SiteFile, SiteFiles } from '../../../src/jobs/crawl/site-fetcher.js';

class Files implements SiteFiles {
  asked = 0;
  maxBytes: number | undefined;
  constructor(public answer: SiteFile | undefined) {}
  async get(_url: string, _timeoutMs: number, maxBytes?: number): Promise<SiteFile | undefined> {
    this.asked++;
    this.maxBytes = maxBytes;
    return this.answer;
  }
}

/** Runs `fn` with Date.now moved `ms` ahead. */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const now = Date.now;
  Date.now = () => now() + ms;
  try {
    return await fn();
  } finally {
    Date.now = now;
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

  it('allows everything without a file (4xx), and nothing, for now, while the site answers 5xx or not at all', async () => {
    expect((await new RobotsBook(new Files(file(404, ''))).rulesOf('http://site.test/')).allows('http://site.test/x', 'a')).to.equal(true);
    for (const answer of [file(503, ''), undefined]) {
      const rules = await new RobotsBook(new Files(answer)).rulesOf('http://site.test/');
      expect(rules.allows('http://site.test/x', 'a')).to.equal(false);
      expect(rules.unavailable).to.equal(true);
    }
  });

  it('reads a 5xx robots.txt again a minute later, not after the crawl: it is no answer for the crawl\'s life', async () => {
    const files = new Files(file(500, ''));
    const book = new RobotsBook(files);
    expect((await book.rulesOf('http://site.test/')).unavailable).to.equal(true);
    await book.rulesOf('http://site.test/');
    expect(files.asked).to.equal(1);
    files.answer = file(200, 'User-agent: *\nDisallow: /private/\n');
    const rules = await later(61_000, () => book.rulesOf('http://site.test/'));
    expect(files.asked).to.equal(2);
    expect(rules.unavailable).to.equal(false);
    expect(rules.allows('http://site.test/x', 'a')).to.equal(true);
    // A file read is kept its ten minutes.
    await later(5 * 60_000, () => book.rulesOf('http://site.test/'));
    expect(files.asked).to.equal(2);
  });

  it('asks for 512 KiB at most, and reads at most 1,000 rules of at most 512 characters', async () => {
    const filler = Array.from({ length: MAX_ROBOTS_RULES }, (_, i) => `Disallow: /filler-${i}`).join('\n');
    const text = `User-agent: *\nDisallow: /${'a'.repeat(600)}\n${filler}\nDisallow: /past-the-cap\n`;
    const files = new Files(file(200, text));
    const rules = await new RobotsBook(files).rulesOf('http://site.test/');
    expect(files.maxBytes).to.equal(MAX_ROBOTS_BYTES).and.equal(512 * 1024);
    expect(rules.allows('http://site.test/filler-999', 'a')).to.equal(false);
    expect(rules.allows(`http://site.test/${'a'.repeat(600)}`, 'a')).to.equal(true);
    expect(rules.allows('http://site.test/past-the-cap', 'a')).to.equal(true);
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
