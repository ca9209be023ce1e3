import { expect } from 'chai';
import { htmlToMarkdown } from '../../../src/content/markdown/html-to-markdown.js';
import { MAX_INDENTATION } from '../../../src/content/markdown/indentation.js';

const PAGE = 'https://example.com/dir/page.html?q=1';

function md(html: string, baseUrl = PAGE): string {
  return htmlToMarkdown({ html, baseUrl, onlyMainContent: false });
}

describe('htmlToMarkdown: conversion', () => {
  it('writes ATX headings', () => {
    expect(md('<h1>One</h1><h2>Two</h2><h3>Three</h3><h6>Six</h6>')).to.equal('# One\n\n## Two\n\n### Three\n\n###### Six');
  });

  it('writes nested lists with "-" bullets and numbered items from the start the page gives', () => {
    expect(md('<ul><li>a<ul><li>b<ul><li>c</li></ul></li></ul></li><li>d</li></ul>')).to.equal('-   a\n    -   b\n        -   c\n-   d');
    expect(md('<ol start="3"><li>x</li><li>y<ol><li>z</li></ol></li></ol>')).to.equal('3.  x\n4.  y\n    1.  z');
  });

  it('writes emphasis with "*" (which GFM reads inside words too) and strong with "**"', () => {
    expect(md('<p><em>e</em> <i>i</i> <strong>s</strong> <b>b</b> un<em>fair</em>ly</p>')).to.equal('*e* *i* **s** **b** un*fair*ly');
  });

  it('escapes text that would read as markdown, and leaves plain text alone', () => {
    expect(md('<p>1. not a list, *not em*, [not a link], a_b</p>')).to.equal('1\\. not a list, \\*not em\\*, \\[not a link\\], a\\_b');
    expect(md('<p>Plain words, commas; and 42 numbers.</p>')).to.equal('Plain words, commas; and 42 numbers.');
  });

  it('writes strikethrough and task lists the GFM way', () => {
    expect(md('<p><s>s</s> <del>d</del> <strike>k</strike></p>')).to.equal('~~s~~ ~~d~~ ~~k~~');
    expect(md('<ul><li><input type="checkbox" checked>done</li><li><input type="checkbox">todo</li></ul>')).to.equal('-   [x] done\n-   [ ] todo');
  });

  it('writes inline code in backticks, longer ones when the code holds a backtick', () => {
    expect(md('<p>Call <code>run()</code> or <code>a`b</code>.</p>')).to.equal('Call `run()` or ``a`b``.');
  });
});

describe('htmlToMarkdown: nesting and empty elements', () => {
  it(`indents list items and quotes ${MAX_INDENTATION} levels deep at most; deeper ones become a paragraph of their text`, () => {
    const lines = md(`${'<ul><li>item'.repeat(15)}${'</li></ul>'.repeat(15)}`).split('\n');
    expect(lines.slice(0, MAX_INDENTATION)).to.deep.equal(Array.from({ length: MAX_INDENTATION }, (_, i) => `${'    '.repeat(i)}-   item`));
    expect(lines.slice(MAX_INDENTATION).join(' ').trim().split(/\s+/)).to.deep.equal(Array(15 - MAX_INDENTATION).fill('item'));
    expect(Math.max(...lines.map((line) => line.length - line.trimStart().length))).to.be.at.most(4 * MAX_INDENTATION);
    expect(md(`${'<blockquote>'.repeat(12)}deep${'</blockquote>'.repeat(12)}`)).to.equal(`${'> '.repeat(MAX_INDENTATION)}deep`);
  });

  it('writes the same around empty elements: nothing for inline ones, a break for a block between words', () => {
    expect(md('<p>a<span class="icon"></span>b <i></i>c</p>')).to.equal('ab c');
    expect(md('<p>a</p><div class="clearfix"></div><p> </p><div><!-- x --></div><p>b</p>')).to.equal('a\n\nb');
    expect(md('<div>before<div></div>after</div>')).to.equal('before\n\nafter');
    // An empty item keeps its number, as turndown writes it.
    expect(md('<ol><li>a</li><li></li><li>c</li></ol>')).to.equal('1.  a\n\n3.  c');
  });
});

describe('htmlToMarkdown: links and images', () => {
  it('makes links and images absolute against the page URL', () => {
    const out = md(
      '<p><a href="a.html">1</a> <a href="/b">2</a> <a href="//cdn.example.org/c">3</a> <a href="?p=2#f">4</a> ' +
        '<a href="#top">5</a> <a href="https://other.org/x" title="T">6</a></p><img src="../img/i.png" alt="I">',
    );
    expect(out).to.equal(
      '[1](https://example.com/dir/a.html) [2](https://example.com/b) [3](https://cdn.example.org/c) ' +
        '[4](https://example.com/dir/page.html?p=2#f) [5](https://example.com/dir/page.html?q=1#top) [6](https://other.org/x "T")\n\n' +
        '![I](https://example.com/img/i.png)',
    );
  });

  it('honours <base href>, itself resolved against the page URL; only the first one with an href counts', () => {
    const head = '<head><base target="_blank"><base href="/docs/v2/"><base href="https://wrong.example/"></head>';
    expect(md(`${head}<body><a href="intro">i</a><img src="x.png" alt=""></body>`)).to.equal(
      '[i](https://example.com/docs/v2/intro)![](https://example.com/docs/v2/x.png)',
    );
    expect(md('<base href="https://mirror.example.net/root/"><a href="p">p</a>')).to.equal('[p](https://mirror.example.net/root/p)');
  });

  it('ignores a javascript: or data: <base href>, as browsers do', () => {
    expect(md('<base href="javascript:alert(1)//"><a href="p">p</a>')).to.equal('[p](https://example.com/dir/p)');
    expect(md('<base href="data:text/html,x"><a href="p">p</a>')).to.equal('[p](https://example.com/dir/p)');
  });

  it('leaves mailto:, tel: and data: URLs exactly as written', () => {
    expect(md('<a href="mailto:Someone@Example.com?subject=Hi">m</a> <a href="tel:+1-555-0100">t</a>')).to.equal(
      '[m](mailto:Someone@Example.com?subject=Hi) [t](tel:+1-555-0100)',
    );
    expect(md('<img src="data:image/png;base64,iVBORw0KGgo=" alt="d">')).to.equal('![d](data:image/png;base64,iVBORw0KGgo=)');
  });

  it('drops the address of javascript: links (however it is spelled) and keeps their text', () => {
    expect(md('<p><a href="javascript:void(0)">one</a>, <a href=" JavaScript:go()">two</a>, <a href="java&#9;script:x()">three</a></p>')).to.equal(
      'one, two, three',
    );
    expect(md('<p>x<img src="javascript:alert(1)" alt="evil">y</p>')).to.equal('xy');
  });

  it('leaves an address that is no URL at all as written', () => {
    expect(md('<a href="http://[broken">b</a>')).to.equal('[b](http://[broken)');
  });

  it('refuses a base URL that is not an absolute URL', () => {
    expect(() => md('<p>x</p>', '/relative/only')).to.throw(TypeError);
  });
});

describe('htmlToMarkdown: tables', () => {
  it('writes a table with a header row as a GFM pipe table, with its alignment', () => {
    const html = '<table><thead><tr><th>Name</th><th align="right">Qty</th></tr></thead><tbody><tr><td>apple</td><td>3</td></tr></tbody></table>';
    expect(md(html)).to.equal('| Name | Qty |\n| --- | ---: |\n| apple | 3   |');
  });

  it('gives a table without a header row an empty header, keeping its first row as data', () => {
    expect(md('<table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>')).to.equal(
      '|     |     |\n| --- | --- |\n| 1   | 2   |\n| 3   | 4   |',
    );
  });

  it('escapes every pipe of a cell, runs of them included', () => {
    expect(md('<table><tr><th>op</th></tr><tr><td>a|b</td></tr><tr><td>a || b</td></tr></table>')).to.equal(
      '| op  |\n| --- |\n| a\\|b |\n| a \\|\\| b |',
    );
  });

  it('writes each cell on one line: line breaks and paragraphs become spaces', () => {
    expect(md('<table><tr><th>h</th></tr><tr><td>one<br>two<p>three</p>\n four</td></tr></table>')).to.equal(
      '| h   |\n| --- |\n| one two three four |',
    );
  });

  it('keeps a table holding lists, headings or quotes a pipe table, never raw HTML', () => {
    const out = md('<table><tr><th>A</th></tr><tr><td><ul><li>x</li><li>y</li></ul></td></tr><tr><td><h3>t</h3><blockquote>q</blockquote></td></tr></table>');
    expect(out).to.not.include('<');
    expect(out.split('\n')).to.have.length(4);
    expect(out).to.match(/^\| A +\|\n\| --- \|\n\| -\s+x -\s+y \|\n\| ### t > q \|$/);
  });

  it('writes the caption above the table, whose header a caption or column group does not hide', () => {
    expect(md('<table><caption>Prices</caption><tr><th>a</th></tr><tr><td>1</td></tr></table>')).to.equal('Prices\n\n| a   |\n| --- |\n| 1   |');
    expect(md('<table><colgroup><col><col></colgroup><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>')).to.equal(
      '| a   | b   |\n| --- | --- |\n| 1   | 2   |',
    );
  });

  it('writes layout tables (one cell, or tables within tables) as their content', () => {
    expect(md('<table><tr><td><p>just text</p></td></tr></table><p>after</p>')).to.equal('just text\n\nafter');
    const out = md('<table><tr><td><p>left</p></td><td><table><tr><th>k</th></tr><tr><td>v</td></tr></table></td></tr></table>');
    expect(out).to.equal('left\n\n| k   |\n| --- |\n| v   |');
  });
});

describe('htmlToMarkdown: code blocks', () => {
  const fence = (language: string, code: string) => `\`\`\`${language}\n${code}\n\`\`\``;

  it('writes fenced blocks with the language the page names, in each of its usual spellings', () => {
    expect(md('<pre><code class="language-js">let a = 1;</code></pre>')).to.equal(fence('js', 'let a = 1;'));
    expect(md('<pre><code class="hljs lang-rb">puts 1</code></pre>')).to.equal(fence('rb', 'puts 1'));
    expect(md('<pre data-lang="go"><code>fmt.Println()</code></pre>')).to.equal(fence('go', 'fmt.Println()'));
    expect(md('<pre class="language-python"><code>print()</code></pre>')).to.equal(fence('python', 'print()'));
    expect(md('<div class="highlight highlight-source-shell"><pre>ls -l</pre></div>')).to.equal(fence('shell', 'ls -l'));
    expect(md('<div class="highlight-python notranslate"><div class="highlight"><pre>x = 1</pre></div></div>')).to.equal(fence('python', 'x = 1'));
  });

  it('writes a block without a language, or with a name that is none, as a bare fence', () => {
    expect(md('<pre><code>plain</code></pre>')).to.equal(fence('', 'plain'));
    expect(md('<div class="highlight-default"><pre>x</pre></div>')).to.equal(fence('', 'x'));
    expect(md('<pre><code class="language-`evil`">x</code></pre>')).to.equal(fence('', 'x'));
  });

  it('keeps the code text as it is: markup inside, <br> line breaks, blank lines, no escaping', () => {
    expect(md('<pre><code class="language-html">&lt;b&gt;*x*&lt;/b&gt;</code></pre>')).to.equal(fence('html', '<b>*x*</b>'));
    expect(md('<pre><span class="k">if</span> x:<br>  <span>go()</span></pre>')).to.equal(fence('', 'if x:\n  go()'));
    expect(md('<pre><code>a\n\n\n\nb</code></pre>')).to.equal(fence('', 'a\n\n\n\nb'));
    expect(md('<ul><li><pre><code>a\n\n\nb</code></pre></li></ul>')).to.equal('-   ```\n    a\n    \n    \n    b\n    ```');
    expect(md('<blockquote><pre><code>a\n\n\nb</code></pre></blockquote>')).to.equal('> ```\n> a\n> \n> \n> b\n> ```');
  });

  it('makes the fence longer than any run of backticks in the code', () => {
    expect(md('<pre><code class="language-md">```\nx\n```</code></pre>')).to.equal('````md\n```\nx\n```\n````');
  });

  it('leaves out what a block holds besides its code, such as a copy button', () => {
    expect(md('<pre><button>Copy</button><code class="language-js">go()</code></pre>')).to.equal(fence('js', 'go()'));
  });
});

describe('htmlToMarkdown: what is never content', () => {
  it('writes the body only: no title, no head', () => {
    expect(md('<html><head><title>Tab title</title><meta name="description" content="meta text"></head><body><p>Body</p></body></html>')).to.equal('Body');
  });

  it('leaves out scripts, styles, templates, drawings, embeds and comments', () => {
    const out = md(
      '<p>keep</p><script>var s = "script text"</script><style>.c { color: red }</style><noscript>noscript text</noscript>' +
        '<template><p>template text</p></template><svg><text>svg text</text></svg><iframe srcdoc="<p>frame text</p>"></iframe>' +
        '<canvas>canvas text</canvas><object>object text</object><!-- comment text --><title>stray title</title><p>end</p>',
    );
    expect(out).to.equal('keep\n\nend');
  });

  it('leaves out form controls and keeps the rest of a form: its labels and legends', () => {
    const out = md(
      '<form><fieldset><legend>Contact</legend>\n<label>Name <input name="n" value="input text"></label>' +
        '<select><option>option text</option></select><textarea>textarea text</textarea><button>button text</button></fieldset></form>',
    );
    expect(out).to.equal('Contact Name');
  });

  it('trims the output and never leaves more than one blank line in a row outside code', () => {
    const out = md('\n\n<p>a</p><p></p><div><br><br><br></div><p> </p><p>b<br><br><br><br>c</p>\n\n');
    expect(out).to.equal(out.trim());
    expect(out).to.not.match(/\n[ \t]*\n[ \t]*\n/);
    expect(out.replace(/\s+/g, ' ')).to.equal('a b c');
  });

  it('gives an empty string for an empty page', () => {
    expect(md('')).to.equal('');
    expect(md('<html><head><title>t</title></head><body> </body></html>')).to.equal('');
  });
});

describe('htmlToMarkdown: pages a browser repairs', () => {
  it('keeps an image or a link that is a block\'s whole content', () => {
    expect(md('<p><img src="a.png" alt="A"></p>')).to.equal('![A](https://example.com/dir/a.png)');
    expect(md('<div><a href="/"><img src="logo.png" alt=""></a></div>')).to.equal('[![](https://example.com/dir/logo.png)](https://example.com/)');
    expect(md('<table><tr><td></td><td><img src="i.png" alt="i"></td></tr><tr><td>3</td><td>4</td></tr></table>')).to.equal(
      '|     |     |\n| --- | --- |\n|     | ![i](https://example.com/dir/i.png) |\n| 3   | 4   |',
    );
  });

  it('writes the text of cells and rows outside any table, and moves text out of a table\'s rows', () => {
    expect(md('<body><td>x</td> <th>y</th><tr>z</body>')).to.equal('x yz');
    expect(md('<table><tr><td>1</td>&nbsp;<td>2</td></tr><tr><td>3</td>stray<td>4</td></tr></table>')).to.equal(
      'stray\n\n|     |     |\n| --- | --- |\n| 1   | 2   |\n| 3   | 4   |',
    );
  });

  it('reads a table whose cells and rows are left unclosed, as HTML allows', () => {
    expect(md('<table><thead><tr><th>A<th>B<tbody><tr><td>1<td>2</table>')).to.equal('| A   | B   |\n| --- | --- |\n| 1   | 2   |');
  });

  it('keeps the space between inline content around a block that is dropped, and inside code blocks', () => {
    expect(md('<p><b>a</b> <noscript>x</noscript><b>b</b></p>')).to.equal('**a** **b**');
    expect(md('<ul><a href="/1">One</a> <a href="/2">Two</a></ul>')).to.equal('[One](https://example.com/1) [Two](https://example.com/2)');
    expect(md('<pre><ol><li>a</li>\n<li>b</li></ol></pre>')).to.equal('```\na\nb\n```');
  });

  it('takes only an <input> for a task list\'s checkbox', () => {
    expect(md('<ul><li><span type="checkbox">text</span></li></ul>')).to.equal('-   text');
  });
});
