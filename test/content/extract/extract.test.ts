import { expect } from 'chai';
import { getOuterHTML } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { run } from './run-rules.js';

const CATALOGUE = `<!DOCTYPE html><html><head><title>  The
  Catalogue </title></head><body>
<h1 class="title">Shop &amp; <em>more</em></h1>
<ul class="items">
  <li class="item" data-id="1"><a href="/p/1" class="link">One</a><span class="name">  Widget
     one </span><span class="price">$ 1.50</span></li>
  <li class="item" data-id="2"><a href="https://example.com/p/2">Two</a><span class="name">Widget two</span></li>
  <li class="item ad" data-id="3"><a href="p/3">Three</a><span class="name">Sponsored</span><span class="price">$ 3</span></li>
</ul>
<p class="empty"></p>
</body></html>`;

describe('extract', () => {
  describe('text and attributes', () => {
    it("gives the first match's text: its descendants' text joined, cleaned by default", () => {
      expect(run(CATALOGUE, { title: 'h1.title', page: 'title', name: '.name' })).to.deep.equal({ title: 'Shop & more', page: 'The Catalogue', name: 'Widget one' });
    });

    it('keeps the text as it is with clean: false', () => {
      expect(run(CATALOGUE, { name: { selector: '.name', clean: false } })).to.deep.equal({ name: '  Widget\n     one ' });
    });

    it('folds every white-space run, no-break spaces too, when cleaning', () => {
      expect(run('<p>\n\t a\u00a0\u00a0b \r\n c\u2003d </p>', { p: 'p' })).to.deep.equal({ p: 'a b c d' });
    });

    it('gives null for an item that matches nothing and "" for an empty match', () => {
      expect(run(CATALOGUE, { missing: '.nothing', empty: 'p.empty', attr: '.nothing@href' })).to.deep.equal({ missing: null, empty: '', attr: null });
    });

    it("gives an attribute as the page has it (relative URLs stay relative), or null when the match lacks it", () => {
      expect(run(CATALOGUE, { link: 'a@href', links: { selector: 'li a', type: 'list', output: '@href' }, none: 'h1@href' })).to.deep.equal({
        link: '/p/1',
        links: ['/p/1', 'https://example.com/p/2', 'p/3'],
        none: null,
      });
    });

    it('cleans attribute values unless told not to, and finds attributes whatever case the rule writes', () => {
      const html = '<div TITLE="  a \n b " data-x=""></div>';
      expect(run(html, { t: 'div@title', raw: { selector: 'div', output: '@Title', clean: false }, empty: 'div@data-x' })).to.deep.equal({ t: 'a b', raw: '  a \n b ', empty: '' });
    });

    it("never finds Object.prototype's members as attributes", () => {
      expect(run('<a href="x">a</a>', { c: 'a@constructor', p: 'a@__proto__', h: 'a@hasOwnProperty' })).to.deep.equal({ c: null, p: null, h: null });
    });

    it('decodes entities and includes script text, as textContent does, but not template content or comments', () => {
      const html = '<div id="d">a&lt;b&nbsp;<!-- no --><script>s()</script><template><i>t</i></template><b>c</b></div>';
      expect(run(html, { d: { selector: '#d', clean: false }, t: 'template i' })).to.deep.equal({ d: 'a<b\u00a0s()c', t: null });
    });

    it('applies the shorthand attribute even where the selector holds an @ in a quoted value', () => {
      const html = '<a href="mailto:x@y.com" title="mail">m</a><a href="/x">x</a>';
      expect(run(html, { m: 'a[href^="mailto:x@y"]@title', t: 'a[href^="mailto:x@y"]' })).to.deep.equal({ m: 'mail', t: 'm' });
    });
  });

  describe('lists', () => {
    it('gives every match in document order, and [] when nothing matches', () => {
      expect(run(CATALOGUE, { names: { selector: '.name', type: 'list' }, none: { selector: 'table', type: 'list' } })).to.deep.equal({
        names: ['Widget one', 'Widget two', 'Sponsored'],
        none: [],
      });
    });

    it('applies nested rules inside each match', () => {
      const rules = { items: { selector: 'li.item', type: 'list', output: { name: '.name', link: 'a@href', price: '.price', id: ':scope@data-id' } } };
      expect(run(CATALOGUE, rules)).to.deep.equal({
        items: [
          { name: 'Widget one', link: '/p/1', price: '$ 1.50', id: '1' },
          { name: 'Widget two', link: 'https://example.com/p/2', price: null, id: '2' },
          { name: 'Sponsored', link: 'p/3', price: '$ 3', id: '3' },
        ],
      });
    });

    it('scopes nested selectors to the match: the chain starts at the match or inside it, never above it', () => {
      const html = '<ul class="outer"><li><b>1</b><ul><li><b>2</b></li></ul></li></ul>';
      const rules = {
        first: {
          selector: 'ul.outer > li',
          output: {
            viaSelf: { selector: 'li b', type: 'list' },
            viaOuter: { selector: 'ul.outer b', type: 'list' },
            children: { selector: '> b', type: 'list' },
            scoped: { selector: ':scope > ul b', type: 'list' },
            notSelf: { selector: 'li', type: 'list' },
            self: { selector: ':scope', output: 'html' },
            selfOrB: { selector: ':scope, b', type: 'list' },
          },
        },
      };
      expect(run(html, rules)).to.deep.equal({
        first: { viaSelf: ['1', '2'], viaOuter: [], children: ['1'], scoped: ['2'], notSelf: ['2'], self: '<li><b>1</b><ul><li><b>2</b></li></ul></li>', selfOrB: ['12', '1', '2'] },
      });
    });

    it('scopes each match afresh when matches nest: nothing found under one holds for the next', () => {
      // css-select would cache `section:has(i)` as found for the section while under #o, and then
      // take it as inside #n too, were its caches on.
      const html = '<div class="s" id="o"><section><i></i><div class="s" id="n"><b>1</b></div></section></div>';
      expect(run(html, { s: { selector: 'div.s', type: 'list', output: { id: ':scope@id', b: { selector: 'section:has(i) b', type: 'list' } } } })).to.deep.equal({
        s: [
          { id: 'o', b: ['1'] },
          { id: 'n', b: [] },
        ],
      });
    });

    it('runs pseudo-classes with inner selectors relative to each match', () => {
      const rules = {
        items: {
          selector: 'li',
          type: 'list',
          output: { real: 'a:not(.link)', hasPrice: { selector: 'span:has(+ .price)', output: 'text' }, contains: 'span:contains("Widget")' },
        },
      };
      expect(run(CATALOGUE, rules)).to.deep.equal({
        items: [
          { real: null, hasPrice: 'Widget one', contains: 'Widget one' },
          { real: 'Two', hasPrice: null, contains: 'Widget two' },
          { real: 'Three', hasPrice: 'Sponsored', contains: null },
        ],
      });
    });

    it('reaches the following siblings of the match with a leading + or ~', () => {
      const html = '<dl><dt>a</dt><dd>1</dd><dt>b</dt><dd>2</dd><dd>3</dd></dl>';
      expect(run(html, { terms: { selector: 'dt', type: 'list', output: { term: ':scope', next: '+ dd', later: { selector: '~ dd', type: 'list' } } } })).to.deep.equal({
        terms: [
          { term: 'a', next: '1', later: ['1', '2', '3'] },
          { term: 'b', next: '2', later: ['2', '3'] },
        ],
      });
    });

    it('gives null for a nested item with no match, and nests lists of lists', () => {
      const html = '<section><h2>A</h2><p>1</p><p>2</p></section><section><h2>B</h2></section>';
      expect(run(html, { s: { selector: 'section', type: 'list', output: { h: 'h2', ps: { selector: 'p', type: 'list' }, x: { selector: 'i', output: { y: 'b' } } } } })).to.deep.equal({
        s: [
          { h: 'A', ps: ['1', '2'], x: null },
          { h: 'B', ps: [], x: null },
        ],
      });
    });

    it('treats a selector list as one query, in document order', () => {
      expect(run('<h2>b</h2><h1>a</h1><h2>c</h2>', { h: { selector: 'h1, h2', type: 'list' } })).to.deep.equal({ h: ['b', 'a', 'c'] });
    });
  });

  describe('html', () => {
    it("gives the match's outerHTML as dom-serializer writes it, UTF-8 left as it is", () => {
      const html = '<div id="x" class="a">caf\u00e9 &amp; <b title=\'say "hi"\'>bold</b><br><img src="a.png" alt=""></div>';
      expect(run(html, { h: { selector: '#x', output: 'html' } })).to.deep.equal({
        h: '<div id="x" class="a">caf\u00e9 &amp; <b title="say &quot;hi&quot;">bold</b><br><img src="a.png" alt></div>',
      });
    });

    it('writes the same HTML as domutils getOuterHTML, SVG and MathML included', () => {
      const page = `<html><head><script>if (a < b) {}</script></head><body><p>x &lt; y<!-- c --></p>
        <svg viewBox="0 0 1 1"><clipPath id="c"><rect width="1"/></clipPath><foreignObject><div>in <b>html</b></div></foreignObject></svg>
        <math><mi>x</mi><mtext><span>t</span></mtext></math><textarea>a<b</textarea></body></html>`;
      const expected = getOuterHTML(parseDocument(page).children.find((n) => 'name' in n && n.name === 'html')!, { encodeEntities: 'utf8' });
      expect(run(page, { h: { selector: 'html', output: 'html' } })).to.deep.equal({ h: expected });
    });

    it("does not rename the page's SVG elements for the rules after it", () => {
      const page = '<svg><clipPath id="c"></clipPath></svg>';
      expect(run(page, { h: { selector: 'svg', output: 'html' }, id: 'clippath@id' })).to.deep.equal({ h: '<svg><clipPath id="c"/></svg>', id: 'c' });
    });
  });

  describe('the result', () => {
    it('is plain data: structured clone and JSON give it back unchanged, "__proto__" an own key', () => {
      const result = run(CATALOGUE, { ['__proto__']: 'h1', items: { selector: 'li', type: 'list', output: { n: '.name', a: 'a@href', p: '.price' } } });
      expect(Object.keys(result)).to.deep.equal(['__proto__', 'items']);
      expect(Object.getPrototypeOf(result)).to.equal(Object.prototype);
      expect(structuredClone(result)).to.deep.equal(result);
      expect(JSON.parse(JSON.stringify(result))).to.deep.equal(result);
    });
  });
});
