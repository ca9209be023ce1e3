import { expect } from 'chai';
import { MAX_DOM_DEPTH as MAX_DEPTH } from '../../../src/content/dom-depth.js';
import { parseHtml } from '../../../src/content/markdown/parse-html.js';

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

  it('keeps no comments, and no white space between the rows and cells of a table, except in <pre>', () => {
    const page = parsed('<div>a <!-- c --> b</div><table>\n<tr>\n <td> x </td>\n</tr>\n</table><pre><table>\n<tr><td>y</td></tr></table></pre>');
    // The comment goes; the text on both sides of it is one node.
    expect(page.root.getElementsByTagName('div')[0].childNodes.map((node) => node.textContent)).to.deep.equal(['a  b']);
    const [table, inCode] = page.root.getElementsByTagName('table');
    expect(table.childNodes.map((node) => node.nodeName)).to.deep.equal(['TR']);
    expect(table.getElementsByTagName('tr')[0].childNodes.map((node) => node.nodeName)).to.deep.equal(['TD']);
    expect(table.getElementsByTagName('td')[0].textContent).to.equal(' x ');
    expect(inCode.childNodes.map((node) => node.nodeName)).to.deep.equal(['#text', 'TR']);
  });

  it('drops the newline right after <pre> once, however the text comes', () => {
    expect(parsed('<pre>\n&#10;x</pre>').root.textContent).to.equal('\nx');
    expect(parsed('<pre>&#10;&#10;x</pre>').root.textContent).to.equal('\nx');
    expect(parsed('<pre><b>\nx</b></pre>').root.textContent).to.equal('\nx');
  });

  it('puts table sections, rows and cells where a browser does, and makes no element of them outside a table', () => {
    const page = parsed('<table><thead><tr><th>A<th>B<tbody><tr><td>1<td>2</table><td>stray</td> <tr>row');
    const table = page.root.getElementsByTagName('table')[0];
    expect(table.children.map((child) => child.localName)).to.deep.equal(['thead', 'tbody']);
    expect(table.getElementsByTagName('th').map((cell) => cell.textContent)).to.deep.equal(['A', 'B']);
    expect(page.root.getElementsByTagName('td').map((cell) => cell.textContent)).to.deep.equal(['1', '2']);
    expect(page.root.childNodes.map((node) => node.nodeName)).to.deep.equal(['TABLE', '#text']);
    expect(page.root.lastChild?.textContent).to.equal('stray row');
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
