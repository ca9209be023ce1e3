import { expect } from 'chai';
import { parseDocument } from 'htmlparser2';
import { MAX_ATTRIBUTE_CHARS, pageAttributes } from '../../../src/content/page-document/page-attributes.js';
import { pageDocument } from '../../../src/content/page-document/page-document.js';

const PAGE = '<html><body><nav><a href="/n" data-id="0">n</a></nav><main><a href="/a" data-id="1">a</a><a data-id="2">b</a><img SRC="/i.png"></main></body></html>';

describe('the attributes format', () => {
  it("each selector's matches' values, in page order, those without the attribute left out", () => {
    expect(pageAttributes(parseDocument(PAGE), [{ selector: 'a', attribute: 'href' }, { selector: 'main [data-id]', attribute: 'data-id' }, { selector: 'img', attribute: 'SRC' }, { selector: 'p', attribute: 'x' }]).attributes).to.deep.equal([
      { selector: 'a', attribute: 'href', values: ['/n', '/a'] },
      { selector: 'main [data-id]', attribute: 'data-id', values: ['1', '2'] },
      { selector: 'img', attribute: 'SRC', values: ['/i.png'] },
      { selector: 'p', attribute: 'x', values: [] },
    ]);
  });

  it('read from the page as it came, whatever onlyMainContent and excludeTags take out of html and markdown', () => {
    const made = pageDocument({
      html: PAGE,
      pageUrl: 'http://127.0.0.1/',
      onlyMainContent: true,
      includeTags: [],
      excludeTags: ['nav'],
      removeBase64Images: true,
      wants: { markdown: true, html: true, links: false, images: false },
      attributes: [{ selector: 'a', attribute: 'data-id' }],
    });
    expect(made.attributes).to.deep.equal([{ selector: 'a', attribute: 'data-id', values: ['0', '1', '2'] }]);
    expect(made.html).to.not.contain('/n');
  });

  it('the values are bounded in characters across all the selectors: none past the bound, none cut, and a warning says so', () => {
    const long = 'x'.repeat(1024 * 1024);
    const html = `<html><body>${Array.from({ length: 12 }, (_, i) => `<a data-v="${long}" id="a${i}">a</a>`).join('')}</body></html>`;
    const read = pageAttributes(parseDocument(html), [{ selector: 'a', attribute: 'data-v' }, { selector: 'a', attribute: 'id' }]);
    expect(read.truncated).to.equal(true);
    expect(read.attributes[0].values).to.have.length(10);
    expect(read.attributes[1].values).to.deep.equal([]);
    const chars = read.attributes.flatMap((a) => a.values).reduce((n, v) => n + v.length, 0);
    expect(chars).to.be.at.most(MAX_ATTRIBUTE_CHARS);
    expect(pageAttributes(parseDocument(html), [{ selector: 'a', attribute: 'id' }]).truncated).to.equal(false);
    const made = pageDocument({
      html,
      pageUrl: 'http://127.0.0.1/',
      onlyMainContent: false,
      includeTags: [],
      excludeTags: [],
      removeBase64Images: true,
      wants: { markdown: false, html: false, links: false, images: false },
      attributes: [{ selector: 'a', attribute: 'data-v' }],
    });
    expect(made.attributes?.[0].values).to.have.length(10);
    expect(made.warning).to.match(/exceed 10485760 characters/);
  });
});
