import { expect } from 'chai';
import { htmlToPlainText } from '../../../src/content/text/plain-text.js';

describe('htmlToPlainText (the fallback for pages that cannot be converted as a tree)', () => {
  it('keeps the text, one block a line, with paragraphs apart and cells side by side', () => {
    const html = '<h1>Title</h1><p>One <b>bold</b> <a href="/x">link</a>.</p><ul><li>a</li><li>b</li></ul><table><tr><td>c1</td><td>c2</td></tr></table>';
    expect(htmlToPlainText(html)).to.equal('Title\n\nOne bold link.\n\na\n\nb\n\nc1 c2');
  });

  it('decodes character references', () => {
    expect(htmlToPlainText('<p>&lt;b&gt; &amp; &#x41;&#66; &eacute; &nbsp;x</p>')).to.equal('<b> & AB é \u00a0x');
  });

  it('leaves out scripts, styles, templates, form fields, comments and the head, as the page text does (one list: text-elements.ts)', () => {
    const html =
      '<head><title>tab</title><style>p{}</style></head><body><script>if (a < b) alert("x")</script><!-- note --><p>kept</p>' +
      '<template><p>tpl</p></template><svg><text>svg</text></svg><select><option>o</option></select><textarea>t</textarea><button>label</button></body>';
    // A button's label is visible text, as a browser's innerText has it.
    expect(htmlToPlainText(html)).to.equal('kept\nlabel');
  });

  it('reads attributes with ">" in quotes as part of their tag', () => {
    expect(htmlToPlainText('<p title="a > b" data-x=\'c > d\'>text</p>')).to.equal('text');
  });

  it('keeps a "<" that starts no tag, and drops everything after an unclosed script', () => {
    expect(htmlToPlainText('<p>1 < 2 and 3 <= 4</p>')).to.equal('1 < 2 and 3 <= 4');
    expect(htmlToPlainText('<p>before</p><script>never closed <p>lost</p>')).to.equal('before');
  });

  it('takes linear time on input made of unclosed scripts and comments', () => {
    const started = performance.now();
    htmlToPlainText('<script>'.repeat(100_000) + '<!--'.repeat(100_000));
    htmlToPlainText('<p title="'.repeat(100_000));
    expect(performance.now() - started).to.be.below(2000);
  });
});
