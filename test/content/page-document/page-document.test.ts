import { expect } from 'chai';
import { pageDocument, type PageDocumentInput } from '../../../src/content/page-document/page-document.js';

const PAGE = `<!doctype html><html lang="en-GB"><head>
<title> The  page </title>
<meta name="description" content="What it is about">
<meta name="keywords" content="a, b">
<meta name="robots" content="index, follow">
<meta property="og:title" content="OG title">
<meta property="og:image" content="https://cdn.example/og.png">
<meta name="twitter:card" content="summary">
<meta name="statusCode" content="999">
<link rel="icon" href="/static/icon.png">
<style>p { color: red }</style>
</head><body>
<nav><a href="/home">Home</a></nav>
<header><h2>Site banner</h2></header>
<main>
  <h1>Main heading</h1>
  <p>Read <a href="guide.html#part">the guide</a>, <a href="guide.html">again</a> and <a href="https://other.example/x">elsewhere</a>.</p>
  <p class="ad-slot">Buy things</p>
  <img src="img/a.png" alt="a"><img src="data:image/png;base64,AAAA" alt="inline"><img src="img/a.png">
  <div id="keep"><span>kept part</span></div>
  <a href="javascript:alert(1)">bad</a><a href="mailto:x@example.com">mail</a>
</main>
<footer>Footer text</footer>
<script>document.write('never')</script>
</body></html>`;

function input(part: Partial<PageDocumentInput> = {}): PageDocumentInput {
  return {
    html: PAGE,
    pageUrl: 'http://127.0.0.1:8000/docs/page',
    onlyMainContent: true,
    includeTags: [],
    excludeTags: [],
    removeBase64Images: true,
    wants: { markdown: true, html: true, links: true, images: true },
    ...part,
  };
}

describe('pageDocument: a page made into the parts of a Firecrawl document, from one parse', () => {
  it('reads the metadata of the head: title, description, language, keywords, robots, og, favicon, other metas by name, none of the service\'s own', () => {
    const { metadata } = pageDocument(input());
    expect(metadata).to.include({
      title: 'The page',
      description: 'What it is about',
      language: 'en-GB',
      keywords: 'a, b',
      robots: 'index, follow',
      ogTitle: 'OG title',
      ogImage: 'https://cdn.example/og.png',
      'twitter:card': 'summary',
      favicon: 'http://127.0.0.1:8000/static/icon.png',
    });
    expect(metadata).not.to.have.property('statusCode');
  });

  it('lists links and images absolute, unique, http(s) only, in document order; data: images only when kept', () => {
    const made = pageDocument(input());
    expect(made.links).to.deep.equal(['http://127.0.0.1:8000/home', 'http://127.0.0.1:8000/docs/guide.html', 'https://other.example/x']);
    expect(made.images).to.deep.equal(['http://127.0.0.1:8000/docs/img/a.png']);
    expect(pageDocument(input({ removeBase64Images: false })).images).to.deep.equal(['http://127.0.0.1:8000/docs/img/a.png', 'data:image/png;base64,AAAA']);
  });

  it('makes markdown of the main content, and html without scripts, styles or chrome, its links absolute', () => {
    const made = pageDocument(input());
    expect(made.markdown).to.contain('# Main heading').and.contain('(http://127.0.0.1:8000/docs/guide.html#part)');
    expect(made.markdown).not.to.contain('Footer text').and.not.to.contain('Home').and.not.to.contain('never');
    expect(made.html).to.contain('<h1>Main heading</h1>').and.contain('href="http://127.0.0.1:8000/docs/guide.html#part"');
    expect(made.html).not.to.match(/<script|<style|<nav|Footer text|Site banner|base64,AAAA|javascript:/);
  });

  it('keeps the chrome without onlyMainContent', () => {
    const made = pageDocument(input({ onlyMainContent: false }));
    expect(made.markdown).to.contain('Footer text');
    expect(made.html).to.contain('Footer text').and.contain('<nav>');
  });

  it('applies includeTags (only what they match) and excludeTags (never what they match)', () => {
    const only = pageDocument(input({ includeTags: ['#keep', 'h1'] }));
    expect(only.markdown).to.contain('Main heading').and.contain('kept part').and.not.contain('Read');
    expect(only.html).to.equal('<h1>Main heading</h1><div id="keep"><span>kept part</span></div>');
    const without = pageDocument(input({ excludeTags: ['.ad-slot', 'h1'] }));
    expect(without.markdown).not.to.contain('Buy things').and.not.to.contain('Main heading');
    expect(without.markdown).to.contain('kept part');
  });

  it('makes only what is asked for', () => {
    const made = pageDocument(input({ wants: { markdown: true, html: false, links: false, images: false } }));
    expect(made).to.have.keys('metadata', 'markdown');
  });

  it('answers a page nested past what it parses as a tree with its text, and says so', () => {
    const deep = `${'<div>'.repeat(5_000)}deep text${'</div>'.repeat(5_000)}`;
    const made = pageDocument(input({ html: deep }));
    expect(made.markdown).to.contain('deep text');
    expect(made.warning).to.match(/too deeply/);
    expect(made.links).to.deep.equal([]);
  });
});
