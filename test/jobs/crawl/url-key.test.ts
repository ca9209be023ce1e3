import { expect } from 'chai';
import { urlKey } from '../../../src/jobs/crawl/url-key.js';

describe('crawl URL keys', () => {
  const exact = { ignoreQuery: false, similar: false };
  const similar = { ignoreQuery: false, similar: true };

  it('lowercases scheme and host, drops the fragment, the default port and a trailing slash, sorts the query', () => {
    expect(urlKey('HTTP://Example.COM:80/a/b/?z=1&a=2#top', exact)).to.equal('http://example.com/a/b?a=2&z=1');
    expect(urlKey('http://example.com/a/b?a=2&z=1', exact)).to.equal(urlKey('http://example.com/a/b/?z=1&a=2', exact));
    expect(urlKey('http://example.com/', exact)).to.equal('http://example.com/');
  });

  it('drops the query when asked', () => {
    expect(urlKey('http://example.com/a?page=2', { ignoreQuery: true, similar: false })).to.equal('http://example.com/a');
  });

  it('with similar URLs, www, the scheme and index pages are one page', () => {
    const spellings = ['http://example.com/docs/', 'https://www.example.com/docs', 'http://WWW.example.com/docs/index.html', 'https://example.com/docs/index.php#x', 'http://example.com:80/docs'];
    expect(new Set(spellings.map((u) => urlKey(u, similar))).size).to.equal(1);
    expect(new Set(spellings.map((u) => urlKey(u, exact))).size).to.be.greaterThan(1);
  });

  it('keys a hostile path in linear time, trimming and unfolding index pages once', () => {
    const hostile = `http://example.com/${'/'.repeat(50_000)}a/${'/'.repeat(50_000)}`;
    const started = performance.now();
    for (const choice of [exact, similar]) expect(urlKey(hostile, choice)).to.match(/\/a$/);
    expect(performance.now() - started).to.be.below(250);
    expect(urlKey('http://example.com/docs/index.html/', similar)).to.equal('//example.com/docs');
    expect(urlKey('http://example.com/index.html/index.html', similar)).to.equal('//example.com/index.html');
    expect(urlKey('http://example.com///', exact)).to.equal('http://example.com/');
  });

  it('refuses what is not an absolute http(s) URL', () => {
    expect(urlKey('mailto:a@b.c', exact)).to.equal(undefined);
    expect(urlKey('/relative', exact)).to.equal(undefined);
  });
});
