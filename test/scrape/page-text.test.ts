import { expect } from 'chai';
import { pageText } from '../../src/scrape/page-text.js';

describe('pageText', () => {
  it('drops scripts, styles and the head, and puts blocks on their own lines', () => {
    const html = '<html><head><title>T</title><script>x()</script></head><body><style>p{}</style><div>a <span>b</span></div><p>c</p>d<br>e</body></html>';
    expect(pageText(html)).to.equal('a b\nc\nd\ne');
  });

  it('folds white space and decodes entities', () => {
    expect(pageText('<p>  fish &amp;\n\n chips&nbsp;!</p>')).to.equal('fish & chips\u00a0!');
  });

  it('keeps the lines of preformatted text and separates table cells', () => {
    expect(pageText('<pre>one\ntwo</pre><table><tr><td>a</td><td>b</td></tr></table>')).to.equal('one\ntwo\na b');
  });

  it('leaves out noscript and template content', () => {
    expect(pageText('<body><noscript>enable js</noscript><template><p>t</p></template><p>shown</p></body>')).to.equal('shown');
  });

  it('reads a page nested 30,000 elements deep without running out of stack', () => {
    const depth = 30_000;
    const html = `<body>${'<div><span>'.repeat(depth / 2)}deep${'</span></div>'.repeat(depth / 2)}<p>after</p></body>`;
    expect(pageText(html)).to.equal('deep\nafter');
  });
});
