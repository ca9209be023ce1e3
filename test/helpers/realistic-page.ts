// A documentation/blog-like HTML page of a chosen size, for the markdown bench and the size
// tests: page chrome (nav, sidebar, footer, cookie banner, scripts) around an article made of
// headings, paragraphs with links and inline markup, nested lists, tables, code blocks, quotes
// and images. Deterministic (seeded), so runs and machines compare the same input.

const WORDS = (
  'the scraper fetches each page once and keeps its final address so that every relative link ' +
  'resolves against what the browser saw proxy sessions rotate when a target refuses while the ' +
  'ledger debits credits per request markdown output feeds language models and search indexes'
).split(' ');

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function realisticPage(targetBytes: number, seed = 7): string {
  const rnd = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)];
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  let linkNo = 0;
  const link = () => `<a href="${pick(['/docs/', '../guide/', 'https://example.org/', '#'])}page-${++linkNo}" title="${words(2)}">${words(2)}</a>`;
  const paragraph = () =>
    `<p>${words(12)} ${link()} ${words(6)} <em>${words(2)}</em> ${words(5)} <strong>${words(2)}</strong> ` +
    `<code>${pick(WORDS)}()</code> ${words(8)} ${link()} ${words(10)}.</p>\n`;
  const list = (depth: number): string =>
    `<ul>\n${Array.from({ length: 4 }, (_, i) => `  <li>${words(5)} ${link()}${depth > 0 && i === 1 ? list(depth - 1) : ''}</li>\n`).join('')}</ul>\n`;
  const table = () =>
    `<table>\n<thead><tr><th>Name</th><th>Value</th><th>Notes</th></tr></thead>\n<tbody>\n` +
    Array.from({ length: 8 }, () => `<tr><td>${pick(WORDS)}</td><td>${Math.floor(rnd() * 1000)}</td><td>${words(6)} ${link()}</td></tr>\n`).join('') +
    `</tbody>\n</table>\n`;
  const code = () =>
    `<pre><code class="language-${pick(['js', 'python', 'bash'])}">` +
    Array.from({ length: 8 }, () => `const ${pick(WORDS)} = await fetch(&quot;/${pick(WORDS)}&quot;); // ${words(4)}`).join('\n') +
    `</code></pre>\n`;
  const section = (n: number) =>
    `<section id="s${n}">\n<h2>${words(4)}</h2>\n${paragraph()}${paragraph()}${list(2)}<h3>${words(3)}</h3>\n${paragraph()}${table()}` +
    `${code()}<blockquote><p>${words(20)}</p></blockquote>\n<ol><li>${words(6)}</li><li>${words(6)}</li><li>${words(6)}</li></ol>\n` +
    `<p><img src="/img/figure-${n}.png" alt="${words(3)}"> ${words(10)}</p>\n</section>\n`;

  const nav = `<header class="site-header"><a href="/" class="logo">Scrapegate</a><nav><ul>${Array.from({ length: 12 }, () => `<li>${link()}</li>`).join('')}</ul></nav></header>\n`;
  const sidebar = `<aside class="sidebar"><h4>On this page</h4>${list(1)}</aside>\n`;
  const footer = `<footer><p>${words(10)}</p><ul>${Array.from({ length: 20 }, () => `<li>${link()}</li>`).join('')}</ul></footer>\n`;
  const cookie = `<div class="cookie-banner" role="dialog"><p>${words(15)}</p><button>Accept</button></div>\n`;
  const head =
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${words(5)}</title>` +
    `<style>body{font-family:sans-serif}.sidebar{float:left}</style><script>window.analytics = { id: 42 };</script></head>\n<body>\n`;
  const tail = `</article></main>\n</div>\n${footer}${cookie}<script src="/app.js"></script>\n</body></html>\n`;

  const parts = [head, nav, `<div class="layout">\n`, sidebar, `<main><article><h1>${words(6)}</h1>\n`];
  let size = parts.reduce((a, p) => a + p.length, 0) + tail.length;
  for (let n = 1; size < targetBytes; n++) {
    const s = section(n);
    parts.push(s);
    size += s.length;
  }
  parts.push(tail);
  return parts.join('');
}
