import { expect } from 'chai';
import { EXTRACT_LIMITS } from '../../../src/content/extract/extract.js';
import { refusal, run } from './run-rules.js';

describe('extract: limits', () => {
  describe('caps', () => {
    const items = (n: number) => `<ul>${'<li><b>x</b></li>'.repeat(n)}</ul>`;

    it(`gives ${EXTRACT_LIMITS.maxResults.toLocaleString('en')} list values and refuses one more, naming the rule`, () => {
      const limit = EXTRACT_LIMITS.maxResults;
      expect((run(items(limit), { l: { selector: 'li', type: 'list' } }) as { l: string[] }).l).to.have.length(limit);
      const err = refusal(items(limit + 1), { l: { selector: 'li', type: 'list' } });
      expect(err.issues).to.deep.equal([{ path: ['l'], msg: 'more than 10,000 results', type: 'value_error.extract_rules.too_many_results' }]);
    });

    it('counts the values of every list together, nested ones too, and names the rule that passed the cap', () => {
      const err = refusal(items(4), { a: { selector: 'li', type: 'list' }, b: { selector: 'ul', type: 'list', output: { c: { selector: 'b', type: 'list' } } } }, { maxResults: 6 });
      expect(err.issues[0].path).to.deep.equal(['b', 'output', 'c']);
      expect(() => run(items(4), { a: { selector: 'li', type: 'list' }, b: { selector: 'li', type: 'list' } }, { maxResults: 8 })).not.to.throw();
    });

    it('counts table rows as results', () => {
      const html = `<table>${'<tr><td>1</td></tr>'.repeat(5)}</table>`;
      expect(refusal(html, { t: { selector: 'table', output: 'table_array' } }, { maxResults: 4 }).issues[0].path).to.deep.equal(['t']);
      expect(refusal(html, { t: { selector: 'table', output: 'table_json' } }, { maxResults: 3 }).issues[0].path).to.deep.equal(['t']);
    });

    it('stops at the cap before producing the value past it', () => {
      // {"l":[ and ]}, and 100 values "x" with their commas, are 407 characters of JSON: a value
      // made before the count was checked would pass the size cap first and be refused as too large instead.
      const err = refusal(items(50_000), { l: { selector: 'b', type: 'list' } }, { maxResults: 100, maxResultChars: 408 });
      expect(err.issues[0]).to.deep.include({ path: ['l'], type: 'value_error.extract_rules.too_many_results' });
    });

    it('refuses more text than the character cap allows', () => {
      const err = refusal(items(10), { l: { selector: 'li', type: 'list', output: 'html' } }, { maxResultChars: 50 });
      expect(err.issues[0]).to.deep.include({ path: ['l'], type: 'value_error.extract_rules.too_large' });
    });

    it('counts every character of the JSON: the answer at the cap passes, one character less is refused', () => {
      const table = '<table><thead><tr><th>a "q"</th><th>b</th></tr></thead><tr><td>1</td></tr><tr><td>2</td><td>3</td><td>4</td></tr></table>';
      const html = `<ul>${'<li data-x="\u2028"><b>x\ty</b><i>"</i></li>'.repeat(3)}</ul>${table}<p>\ud800 é</p>`;
      const rules = {
        'a "quoted" name': { selector: 'li', type: 'list', output: { b: 'b', missing: 'em', attr: ':scope@data-x', none: ':scope@nope', i: { selector: 'i', clean: false } } },
        '': undefined,
        empty: { selector: 'ol', type: 'list' },
        rows: { selector: 'table', output: 'table_array' },
        json: { selector: 'table', output: 'table_json' },
        p: 'p',
        html: { selector: 'li', output: 'html' },
      } as Record<string, unknown>;
      delete rules[''];
      const result = run(html, rules);
      const length = JSON.stringify(result).length;
      expect(run(html, rules, { maxResultChars: length })).to.deep.equal(result);
      expect(refusal(html, rules, { maxResultChars: length - 1 }).issues[0].type).to.equal('value_error.extract_rules.too_large');
    });

    it('counts the names and the nulls of rules that match nothing (attack 3), and stops before building the rest', () => {
      const name = (i: number) => `${'n'.repeat(137)}${String(i).padStart(3, '0')}`;
      const nested = Object.fromEntries(Array.from({ length: 88 }, (_, i) => [name(i), 'nothing']));
      const rules = { l: { selector: 'br', type: 'list', output: nested } };
      const page = '<br>'.repeat(10_000);
      // Each item is {"<140 characters>":null,…}: 88 × (142 + 1 + 4) + 87 + 2 = 13,025 characters; 10,000 of them, 130 MB.
      const err = refusal(page, rules, { maxResultChars: 1_000_000 });
      expect(err.issues[0]).to.deep.include({ type: 'value_error.extract_rules.too_large', msg: 'the extracted answer exceeds 1,000,000 characters of JSON' });
      expect(err.issues[0].path[0]).to.equal('l');
    });

    it('refuses work past the step cap, naming the rule', () => {
      // The parse takes 2,001 of the steps (one for each of the page's elements), the rules the rest.
      const err = refusal(items(1_000), { ok: 'b', costly: { selector: 'li', type: 'list', output: { b: 'b' } } }, { maxWorkSteps: 5_001 });
      expect(err.issues[0]).to.deep.include({ path: ['costly'], type: 'value_error.extract_rules.too_costly' });
    });
  });

  describe('hostile pages', () => {
    const nested = (levels: number, inner = '<span title="t">x</span>') =>
      `<html><body>${Array.from({ length: levels }, (_, i) => `<div id="d${i + 1}">`).join('')}${inner}${'</div>'.repeat(levels)}<p>after</p></body></html>`;

    it('nests the page as Chrome does: elements below level 513 move up to level 512, text stays put', () => {
      // Chromium, given these pages, has div 510 (level 512) hold div 511, then b, i and u, and 90 empty divs of 600.
      const inner = 'a<b>x<i>y</i>z</b>c<!--k--><u>w</u>';
      expect(run(nested(511, inner), { h: { selector: '#d510', output: 'html' }, t: 'body' })).to.deep.equal({
        h: '<div id="d510"><div id="d511">ac<!--k--></div><b>xz</b><i>y</i><u>w</u></div>',
        // The text in document order of the DOM as Chrome builds it: b's text follows div 511's.
        t: 'acxzywafter',
      });
      const result = run(nested(600), { empty: { selector: 'div:empty', type: 'list', output: '@id' }, span: 'span', parent: { selector: '#d510 > span', output: '@title' } });
      expect(result).to.deep.equal({ empty: Array.from({ length: 90 }, (_, i) => `d${511 + i}`), span: 'x', parent: 't' });
    });

    it('reads text, html and attributes in 30,000 nested elements, unclosed ones too', function () {
      this.timeout(120_000);
      const levels = 30_000;
      const page = `${'<div class="d">'.repeat(levels)}<span title="t">x</span>`;
      const result = run(page, {
        text: 'div',
        span: 'div span@title',
        html: { selector: 'div', output: 'html' },
        nested: { selector: 'div', output: { s: 'span', d: 'div.d > span@title' } },
        contains: 'div:contains("x") > span',
      });
      expect(result).to.deep.include({ text: 'x', span: 't', nested: { s: 'x', d: 't' }, contains: 'x' });
      // 512 levels of div as parsed, the one at the last level holding the other 29,488 and the span.
      const html = (result as { html: string }).html;
      expect(html.startsWith('<div class="d"><div class="d">')).to.equal(true);
      expect(html.endsWith('<div class="d"></div><span title="t">x</span></div>' + '</div>'.repeat(511))).to.equal(true);
      expect(html.length).to.equal(levels * '<div class="d"></div>'.length + '<span title="t">x</span>'.length);
    });

    it('counts the parse of a deeply nested page in the steps: 100,000 nested elements are refused, in a fraction of their parse', function () {
      this.timeout(60_000);
      // htmlparser2 alone takes about 4 s over this page (its stack of open elements shifts at each one).
      const started = performance.now();
      const err = refusal('<div>'.repeat(100_000), { a: 'p' });
      expect(err.issues[0]).to.deep.include({ path: [], type: 'value_error.extract_rules.too_costly' });
      expect(performance.now() - started).to.be.below(3_000);
    });

    it('ends work that grows with the square of the page with a 422 naming the rule, quickly', () => {
      const started = performance.now();
      const siblings = `<ul>${'<li>x</li>'.repeat(50_000)}</ul>`;
      expect(refusal(siblings, { ok: 'li', later: { selector: 'li ~ li', type: 'list' } }).issues[0]).to.deep.include({
        path: ['later'],
        type: 'value_error.extract_rules.too_costly',
      });
      expect(performance.now() - started).to.be.below(15_000);
    });

    it('stops a list of the texts of nested elements at a cap', () => {
      const err = refusal(nested(20_000), { texts: { selector: 'div', type: 'list' } });
      expect(err.issues[0].path).to.deep.equal(['texts']);
      expect(err.issues[0].type).to.be.oneOf(['value_error.extract_rules.too_many_results', 'value_error.extract_rules.too_costly']);
    });

    it('takes odd attributes and names', () => {
      const html = '<a href="x" data-a:b="1" _x="2" on-click="3" \u00e9="4">a</a>';
      expect(run(html, { ab: 'a@data-a:b', x: 'a@_x', o: 'a@on-click', e: 'a@\u00e9' })).to.deep.equal({ ab: '1', x: '2', o: '3', e: '4' });
    });
  });
});
