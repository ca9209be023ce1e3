import { expect } from 'chai';
import { ElementNode, TextNode } from '../../../../src/content/markdown/dom/nodes.js';

describe('markdown DOM nodes', () => {
  it('moves, removes and replaces nodes with their links and lists kept right', () => {
    const list = new ElementNode('ul');
    const items = ['a', 'b', 'c'].map((text) => {
      const item = list.appendChild(new ElementNode('li'));
      item.textContent = text;
      return item;
    });
    expect(list.children).to.have.length(3);
    items[1].remove();
    expect(list.children.map((item) => item.textContent)).to.deep.equal(['a', 'c']);
    list.insertBefore(items[2], items[0]);
    expect(list.textContent).to.equal('ca');
    expect(list.firstChild).to.equal(items[2]);
    expect(list.lastChild).to.equal(items[0]);
    expect(items[0].previousSibling).to.equal(items[2]);
    items[0].replaceWith(items[1]);
    expect(list.textContent).to.equal('cb');
    expect(items[0].parentNode).to.equal(null);
    // Before itself, or replaced by itself, a node stays where it is.
    list.insertBefore(items[1], items[1]);
    items[2].replaceWith(items[2]);
    expect(list.childNodes).to.deep.equal([items[2], items[1]]);
    expect(items[1].nextSibling).to.equal(null);
    // Names in any case, as turndown asks for them.
    expect(list.getElementsByTagName('LI')).to.have.length(2);
  });

  it("knows each element's text after one read, and forgets it when the subtree changes", () => {
    const section = new ElementNode('section');
    const paragraph = section.appendChild(new ElementNode('p'));
    const words = paragraph.appendChild(new TextNode('one '));
    const strong = paragraph.appendChild(new ElementNode('strong'));
    strong.appendChild(new TextNode('two'));
    expect(section.textContent).to.equal('one two');
    expect(strong.textContent).to.equal('two');
    words.data = 'uno ';
    expect(section.textContent).to.equal('uno two');
    expect(paragraph.textContent).to.equal('uno two');
    strong.remove();
    expect(section.textContent).to.equal('uno ');
    expect(strong.textContent).to.equal('two');
    section.appendChild(strong);
    expect(section.textContent).to.equal('uno two');
    strong.textContent = 'tres';
    expect(section.textContent).to.equal('uno tres');
    expect(new ElementNode('div').textContent).to.equal('');
  });
});
