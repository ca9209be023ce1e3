import { expect } from 'chai';
import { CrawlScope } from '../../../src/jobs/crawl/crawl-scope.js';

const none = { crawlEntireDomain: false, allowSubdomains: false, allowExternalLinks: false };
const allows = (scope: CrawlScope, url: string) => scope.allows(new URL(url));

describe('crawl scope', () => {
  it('keeps to the start host and the start path by default (www or not)', () => {
    const scope = new CrawlScope(new URL('https://example.com/docs/intro'), none);
    expect(allows(scope, 'https://example.com/docs/setup')).to.equal(true);
    expect(allows(scope, 'https://www.example.com/docs/a')).to.equal(true);
    expect(allows(scope, 'https://example.com/blog/a')).to.equal(false);
    expect(allows(scope, 'https://docs.example.com/docs/a')).to.equal(false);
    expect(allows(scope, 'https://other.org/docs/a')).to.equal(false);
  });

  it('crawlEntireDomain lets every path of the host in', () => {
    const scope = new CrawlScope(new URL('https://example.com/docs/'), { ...none, crawlEntireDomain: true });
    expect(allows(scope, 'https://example.com/blog/a')).to.equal(true);
  });

  it('allowSubdomains follows the registrable domain by the public-suffix list', () => {
    const scope = new CrawlScope(new URL('https://shop.example.co.uk/'), { ...none, allowSubdomains: true });
    expect(allows(scope, 'https://blog.example.co.uk/x')).to.equal(true);
    expect(allows(scope, 'https://example.co.uk/x')).to.equal(true);
    expect(allows(scope, 'https://other.co.uk/x')).to.equal(false);
    const pages = new CrawlScope(new URL('https://alice.github.io/'), { ...none, allowSubdomains: true });
    expect(allows(pages, 'https://bob.github.io/')).to.equal(false);
  });

  it('allowExternalLinks lets any host in; an address is only itself', () => {
    expect(allows(new CrawlScope(new URL('http://127.0.0.1:8080/'), { ...none, allowExternalLinks: true }), 'http://127.0.0.2:8080/x')).to.equal(true);
    expect(allows(new CrawlScope(new URL('http://127.0.0.1:8080/'), { ...none, allowSubdomains: true }), 'http://127.0.0.2:8080/x')).to.equal(false);
  });
});
