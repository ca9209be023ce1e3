import { expect } from 'chai';
import { Document, Element, Text, type ParentNode } from 'domhandler';
import { appendChild, getOuterHTML, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { compileQuery, eachMatch, firstMatch } from '../../../src/content/extract/css-query.js';
import { limitDepth } from '../../../src/content/extract/depth-limit.js';
import { nodeText } from '../../../src/content/extract/node-text.js';
import { outerHtml } from '../../../src/content/extract/outer-html.js';

/** A document of `levels` nested divs, each holding the text "a" before the next div, the last a span holding "x"; built directly, as no parse limits its depth. */
function chain(levels: number): { document: Document; top: Element } {
  const document = new Document([]);
  let parent: ParentNode = document;
  for (let i = 0; i < levels; i++) {
    const div = new Element('div', { class: 'd' });
    appendChild(parent, div);
    appendChild(div, new Text('a'));
    parent = div;
  }
  const span = new Element('span', { title: 't' });
  appendChild(parent, span);
  appendChild(span, new Text('x'));
  return { document, top: document.children[0] as Element };
}

const LEVELS = 100_000;

describe('walks over a DOM nested 100,000 deep', () => {
  const { document, top } = chain(LEVELS);

  it('is deep enough that domutils and dom-serializer, which recurse, overflow the stack', () => {
    expect(() => textContent(top)).to.throw(RangeError);
    expect(() => getOuterHTML(top)).to.throw(RangeError);
  });

  it('nodeText collects every text node in order', () => {
    expect(nodeText(top)).to.equal(`${'a'.repeat(LEVELS)}x`);
    expect(nodeText(document)).to.equal(`${'a'.repeat(LEVELS)}x`);
  });

  it('outerHtml writes the whole subtree', () => {
    expect(outerHtml(top)).to.equal(`${'<div class="d">a'.repeat(LEVELS)}<span title="t">x</span>${'</div>'.repeat(LEVELS)}`);
  });

  it('eachMatch and firstMatch find elements at the bottom, in document order, top level and nested', () => {
    expect(firstMatch(compileQuery('div > span', false), document)?.attribs.title).to.equal('t');
    let count = 0;
    eachMatch(compileQuery('div', false), document, () => {
      count++;
    });
    expect(count).to.equal(LEVELS);
    const nested = compileQuery('div span', true);
    expect(firstMatch(nested, top)?.name).to.equal('span');
    const innermost = firstMatch(compileQuery('span', false), document)?.parent as Element;
    expect(firstMatch(compileQuery(':scope > span', true), innermost)?.name).to.equal('span');
    expect(firstMatch(compileQuery('div > div', true), innermost)).to.equal(null);
  });
});

describe('limitDepth', () => {
  it('leaves a page within the depth as it is', () => {
    const html = '<html><body><div><p>a<b>b</b></p></div></body></html>';
    const document = parseDocument(html);
    limitDepth(document, 5);
    expect(getOuterHTML(document)).to.equal(html);
  });

  it('moves the elements below the last level up, after the one they were in, keeping text and comments in place', () => {
    const document = parseDocument('<a><b>1<c>2<d>3</d>4<!--k--></c>5<e></e></b><f></f></a><g></g>');
    limitDepth(document, 2);
    // b is at the last level: d, inside its child c, moves up into b, after c; the text 5, written in b after d, follows d.
    expect(getOuterHTML(document)).to.equal('<a><b>1<c>24<!--k--></c><d>3</d>5<e></e></b><f></f></a><g></g>');
  });

  it('keeps the links consistent with the children arrays after moving', () => {
    const document = parseDocument(`<main>${'<i>'.repeat(50)}x${'</i>'.repeat(50)}<p>y</p></main>`);
    limitDepth(document, 3);
    const main = document.children[0] as Element;
    const i1 = main.children[0] as Element;
    expect(i1.children).to.have.length(1);
    const i2 = i1.children[0] as Element;
    expect(i2.children.map((c) => (c as Element).name)).to.deep.equal(Array.from({ length: 48 }, () => 'i'));
    for (const [n, child] of i2.children.entries()) {
      expect(child.parent).to.equal(i2);
      expect(child.prev).to.equal(i2.children[n - 1] ?? null);
      expect(child.next).to.equal(i2.children[n + 1] ?? null);
    }
    expect((i2.children[47] as Element).children.map((c) => c.parent)).to.deep.equal([i2.children[47]]);
    expect(nodeText(document)).to.equal('xy');
    expect(firstMatch(compileQuery('main > p', false), document)?.children[0]).to.have.property('data', 'y');
  });

  it('flattens 20,000 unclosed elements in one pass', () => {
    const document = parseDocument('<div>'.repeat(20_000));
    const started = performance.now();
    limitDepth(document);
    expect(performance.now() - started).to.be.below(1_000);
    let deepest = 0;
    let count = 0;
    eachMatch(compileQuery('div', false), document, (element) => {
      count++;
      let depth = 0;
      for (let e: ParentNode | null = element; e && e !== document; e = e.parent) depth++;
      deepest = Math.max(deepest, depth);
    });
    expect(count).to.equal(20_000);
    expect(deepest).to.equal(513);
  });
});
