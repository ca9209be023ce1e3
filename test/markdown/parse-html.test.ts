import { expect } from 'chai';
import { MAX_DEPTH, parseHtml } from '../../src/markdown/parse-html.js';

function parsed(html: string) {
  const page = parseHtml(html);
  if (page === null) throw new Error('not parsed');
  return page;
}

describe('parseHtml: the tree turndown converts', () => {
  it('finds the body, or takes the whole page as one when there is none', () => {
    const page = parsed('<html><head><title>t</title></head><body><p>x</p></body></html>');
    expect(page.body.localName).to.equal('body');
    expect(page.body.textContent).to.equal('x');
    const fragment = parsed('<p>only</p>');
    expect(fragment.body).to.equal(fragment.root);
  });

  it('puts what follows </body> into the body, as a browser does', () => {
    expect(parsed('<body><p>in</p></body><p>after</p></html>tail').body.textContent).to.equal('inaftertail');
  });

  it('normalizes line breaks and drops the newline right after <pre>, as the HTML parser does', () => {
    const page = parsed('<p>a\r\nb\rc</p><pre>\nfirst\r\nsecond</pre>');
    expect(page.root.textContent).to.equal('a\nb\ncfirst\nsecond');
  });

  it('keeps no comments, and no white space before a block or between rows and items, except in <pre>', () => {
    const page = parsed('<div>a <!-- c --> b\n  <p>p</p>\n</div><ul>\n<li>i</li>\n</ul><pre>\n\n<div>x</div></pre>');
    expect(page.root.getElementsByTagName('div')[0].childNodes.map((node) => node.nodeName)).to.deep.equal(['#text', 'P', '#text']);
    // The comment goes; the text on both sides of it is one node, which is more than white space.
    expect(page.root.getElementsByTagName('div')[0].firstChild?.textContent).to.equal('a  b\n  ');
    expect(page.root.getElementsByTagName('ul')[0].childNodes.map((node) => node.nodeName)).to.deep.equal(['LI']);
    expect(page.root.getElementsByTagName('pre')[0].childNodes.map((node) => node.nodeName)).to.deep.equal(['#text', 'DIV']);
  });

  it("records the first <base> that has an href, and the attributes as written, entities decoded", () => {
    const page = parsed('<base target="x"><base href="/one/?a=1&amp;b=2"><base href="/two/"><a href="x" data-v="&lt;&quot;">l</a>');
    expect(page.baseHref).to.equal('/one/?a=1&b=2');
    const link = page.root.getElementsByTagName('a')[0];
    expect(link.getAttribute('data-v')).to.equal('<"');
    expect(link.getAttribute('constructor')).to.equal(null);
    expect(link.hasAttribute('toString')).to.equal(false);
  });

  it(`gives up past MAX_DEPTH (${MAX_DEPTH}) nested elements`, () => {
    expect(parseHtml('<div>'.repeat(MAX_DEPTH))).to.be.instanceOf(Object);
    expect(parseHtml('<div>'.repeat(MAX_DEPTH + 1))).to.equal(null);
  });
});
