import { expect } from 'chai';
import { ExtractRulesError, type ExtractRulesIssue } from '../../../src/content/extract/extract-rules-error.js';
import { MAX_LEVELS, MAX_RULES, MAX_RULES_BYTES, parseExtractRules, validateExtractRules, type ExtractRules } from '../../../src/content/extract/extract-rules.js';

/** The issues parseExtractRules throws for `raw` (a value is JSON-encoded first); fails when it does not throw. */
function issuesOf(raw: unknown): ExtractRulesIssue[] {
  try {
    parseExtractRules(typeof raw === 'string' ? raw : JSON.stringify(raw));
  } catch (err) {
    expect(err).to.be.instanceOf(ExtractRulesError);
    return (err as ExtractRulesError).issues;
  }
  expect.fail(`${JSON.stringify(raw)} was accepted`);
}

function only(raw: unknown): ExtractRulesIssue {
  const issues = issuesOf(raw);
  expect(issues, JSON.stringify(issues)).to.have.length(1);
  return issues[0];
}

const parse = (rules: unknown): ExtractRules => parseExtractRules(JSON.stringify(rules));

describe('parseExtractRules', () => {
  describe('the accepted grammar', () => {
    it('reads a selector string as the first match\'s cleaned text', () => {
      expect(parse({ title: 'h1.title' })).to.deep.equal([{ name: 'title', selector: 'h1.title', type: 'item', output: { kind: 'text' }, clean: true }]);
    });

    it('reads "selector@attribute" as that attribute, lower-cased as the parser lower-cases the page\'s', () => {
      expect(parse({ link: 'a.next@HREF' })).to.deep.equal([
        { name: 'link', selector: 'a.next', type: 'item', output: { kind: 'attribute', name: 'href' }, clean: true },
      ]);
      expect(parse({ id: 'div > span @data-id' })[0]).to.include({ selector: 'div > span' }).and.deep.include({ output: { kind: 'attribute', name: 'data-id' } });
    });

    it('splits only at an @ outside quotes, brackets and escapes, followed by an attribute name', () => {
      expect(parse({ m: 'a[href^="mailto:x@y"]' })[0]).to.deep.include({ selector: 'a[href^="mailto:x@y"]', output: { kind: 'text' } });
      expect(parse({ m: "a[href='mailto:x@y.com']@href" })[0]).to.deep.include({ selector: "a[href='mailto:x@y.com']", output: { kind: 'attribute', name: 'href' } });
      expect(parse({ m: 'a[href*=x@y]@title' })[0]).to.deep.include({ selector: 'a[href*=x@y]', output: { kind: 'attribute', name: 'title' } });
      expect(parse({ m: '.md\\@flex' })[0]).to.deep.include({ selector: '.md\\@flex', output: { kind: 'text' } });
      expect(parse({ m: 'a:not([title="@x"])@href' })[0]).to.deep.include({ selector: 'a:not([title="@x"])', output: { kind: 'attribute', name: 'href' } });
    });

    it('reads the full form with its defaults: type item, output text, clean true', () => {
      expect(parse({ t: { selector: 'p' } })).to.deep.equal([{ name: 't', selector: 'p', type: 'item', output: { kind: 'text' }, clean: true }]);
    });

    it('trims the white space around a selector', () => {
      expect(parse({ a: '  h1 > b ', b: { selector: '\n p ' } }).map((r) => r.selector)).to.deep.equal(['h1 > b', 'p']);
    });

    it('reads every output and type of the full form', () => {
      const rules = parse({
        a: { selector: 'p', type: 'list', output: 'html', clean: false },
        b: { selector: 'a', output: '@Href' },
        c: { selector: 'table', output: 'table_array' },
        d: { selector: 'table', type: 'list', output: 'table_json' },
        e: { selector: 'li', type: 'item', output: 'text' },
      });
      expect(rules.map((r) => [r.name, r.type, r.output, r.clean])).to.deep.equal([
        ['a', 'list', { kind: 'html' }, false],
        ['b', 'item', { kind: 'attribute', name: 'href' }, true],
        ['c', 'item', { kind: 'table_array' }, true],
        ['d', 'list', { kind: 'table_json' }, true],
        ['e', 'item', { kind: 'text' }, true],
      ]);
    });

    it('takes the shorthand attribute from a full-form selector when the rule names no output', () => {
      expect(parse({ l: { selector: 'a@href', type: 'list' } })[0]).to.deep.include({ selector: 'a', type: 'list', output: { kind: 'attribute', name: 'href' } });
    });

    it('reads nested rules as an output, in the order given', () => {
      const rules = parse({ items: { selector: 'li', type: 'list', output: { name: '.name', link: 'a@href', price: { selector: '.price', clean: false } } } });
      expect(rules[0].output).to.deep.equal({
        kind: 'rules',
        rules: [
          { name: 'name', selector: '.name', type: 'item', output: { kind: 'text' }, clean: true },
          { name: 'link', selector: 'a', type: 'item', output: { kind: 'attribute', name: 'href' }, clean: true },
          { name: 'price', selector: '.price', type: 'item', output: { kind: 'text' }, clean: false },
        ],
      });
    });

    it('takes selectors relative to the enclosing match in nested rules', () => {
      const rules = parse({ row: { selector: 'li', output: { own: ':scope > a', next: '+ li', child: '> span' } } });
      expect(rules[0].output).to.have.property('kind', 'rules');
    });

    it('accepts CSS that css-select runs: pseudo-classes, attribute operators, escapes, selector lists', () => {
      for (const selector of ['li:nth-child(2n+1)', 'a:not(.ad):is(.x, .y)', 'div:has(> img)', 'p:contains("hi")', 'input[type="text" i]', '.w-1\\/2', 'h1, h2', 'a[href$=".pdf"]']) {
        expect(parse({ s: selector })[0].selector, selector).to.equal(selector);
      }
    });

    it('keeps any non-empty name, including "__proto__", as an own key', () => {
      const rules = parseExtractRules('{"__proto__": "p", "a b": "p", "é": "p"}');
      expect(rules.map((r) => r.name)).to.deep.equal(['__proto__', 'a b', 'é']);
    });

    it('is plain data: structured clone and JSON give back the same rules', () => {
      const rules = parse({ items: { selector: 'li', type: 'list', output: { name: '.name', link: 'a@href', t: { selector: 'table', output: 'table_json' } } } });
      expect(structuredClone(rules)).to.deep.equal(rules);
      expect(JSON.parse(JSON.stringify(rules))).to.deep.equal(rules);
    });

    it('validates rules that arrive already parsed', () => {
      expect(validateExtractRules({ t: 'h1' })).to.deep.equal(parse({ t: 'h1' }));
      expect(() => validateExtractRules(['h1'])).to.throw(ExtractRulesError, 'extract_rules must be a JSON object');
    });
  });

  describe('refusals', () => {
    it('refuses text that is not JSON, saying where the parser stopped', () => {
      const issue = only('{"title": "h1",}');
      expect(issue).to.deep.include({ path: [], type: 'value_error.jsondecode' });
      expect(issue.msg).to.match(/^extract_rules is not valid JSON: /).and.match(/position \d+/);
      expect(only('h1').msg).to.match(/^extract_rules is not valid JSON: /);
      expect(only('').msg).to.match(/^extract_rules is not valid JSON: /);
    });

    it('refuses a value that is not an object', () => {
      for (const value of ['"h1"', '["h1"]', '42', 'null', 'true']) {
        expect(only(value), value).to.deep.equal({ path: [], msg: 'extract_rules must be a JSON object', type: 'type_error.dict' });
      }
    });

    it('refuses empty rule objects, at the top and nested', () => {
      expect(only({})).to.deep.include({ path: [], msg: 'extract_rules must hold at least one rule' });
      expect(only({ a: { selector: 'li', output: {} } })).to.deep.include({ path: ['a', 'output'] });
    });

    it('refuses an empty name, naming it', () => {
      expect(only({ '': 'h1' })).to.deep.include({ path: [''], msg: "a rule's name must not be empty" });
      expect(only({ a: { selector: 'li', output: { '': 'p' } } }).path).to.deep.equal(['a', 'output', '']);
    });

    it('refuses rule values of the wrong JSON type', () => {
      for (const value of [1, null, true, ['h1']]) {
        expect(only({ a: value }), JSON.stringify(value)).to.deep.include({ path: ['a'], type: 'type_error' });
      }
    });

    it('refuses an unknown key of the full form, naming the key', () => {
      const issue = only({ price: { selector: '.p', typ: 'list' } });
      expect(issue).to.deep.include({ path: ['price', 'typ'], type: 'value_error.extra' });
      expect(issue.msg).to.contain('"typ"');
    });

    it('requires the selector of the full form, as a string', () => {
      expect(only({ a: { type: 'list' } })).to.deep.equal({ path: ['a', 'selector'], msg: 'field required', type: 'value_error.missing' });
      expect(only({ a: { selector: 3 } })).to.deep.include({ path: ['a', 'selector'], type: 'type_error.str' });
    });

    it('refuses an unknown type, output or clean value', () => {
      expect(only({ a: { selector: 'p', type: 'all' } })).to.deep.include({ path: ['a', 'type'], msg: 'type must be "item" or "list"' });
      expect(only({ a: { selector: 'p', type: 1 } }).path).to.deep.equal(['a', 'type']);
      expect(only({ a: { selector: 'p', type: null } }).path).to.deep.equal(['a', 'type']);
      expect(only({ a: { selector: 'p', clean: null } }).path).to.deep.equal(['a', 'clean']);
      for (const output of ['markdown', '@', '@a b', 'HTML', 3, ['text'], null]) {
        const issue = only({ a: { selector: 'p', output } });
        expect(issue.path, JSON.stringify(output)).to.deep.equal(['a', 'output']);
        expect(issue.msg).to.match(/^output must be "text", "html", "@<attribute>"/);
      }
      expect(only({ a: { selector: 'p', clean: 'yes' } })).to.deep.include({ path: ['a', 'clean'], type: 'type_error.bool' });
    });

    it('lists every issue it finds, each at its own path', () => {
      const issues = issuesOf({ a: 3, b: { selector: '//p', type: 'many' }, c: 'h1', d: { selector: 'li', output: { e: { selector: 'p', x: 1 } } } });
      expect(issues.map((i) => i.path)).to.have.deep.members([['a'], ['b', 'type'], ['b', 'selector'], ['d', 'output', 'e', 'x']]);
    });

    it('refuses XPath, saying to use CSS', () => {
      const xpaths = ['//h1', '/html/body', './/a', '../p', '(//a)[1]', 'descendant::a', 'div/child::p', 'a[@href]', '//a/@href', 'div/span', 'a/text()', 'p[contains(@class, "x")]', '.'];
      for (const selector of xpaths) {
        expect(only({ a: selector }), selector).to.deep.equal({ path: ['a'], msg: 'XPath is not supported; use a CSS selector', type: 'value_error.selector.xpath' });
      }
      expect(only({ a: { selector: 'li', output: { b: { selector: '//a' } } } }).path).to.deep.equal(['a', 'output', 'b', 'selector']);
    });

    it('does not take a slash inside quotes or an escape for XPath', () => {
      expect(parse({ a: 'a[href^="/docs/"]' })[0].selector).to.equal('a[href^="/docs/"]');
      expect(parse({ a: '.w-1\\/2' })[0].selector).to.equal('.w-1\\/2');
    });

    it('refuses selectors that are not CSS with a 422 naming the rule, never an exception of another kind', () => {
      for (const selector of ['a[href', 'a,', 'p >', ':nth-child(x)', 'a::text', 'a::attr(href)', 'svg|rect', 'a || b', '#', 'p:unknown', 'p:unknown(1)', 'a@href b']) {
        const issue = only({ a: { selector, type: 'list' } });
        expect(issue.path, selector).to.deep.equal(['a', 'selector']);
        expect(issue.type, selector).to.equal('value_error.selector');
        expect(issue.msg, selector).to.match(/CSS selector|pseudo-elements/);
      }
    });

    it('says what to do instead of a pseudo-element, and of an attribute in a selector next to an output', () => {
      expect(only({ a: 'li::text' }).msg).to.contain('::text').and.contain('output');
      expect(only({ a: { selector: 'a@href', output: 'text' } }).msg).to.contain('"@href"');
    });

    it('refuses an empty selector', () => {
      expect(only({ a: '' })).to.deep.include({ path: ['a'], msg: 'the selector is empty' });
      expect(only({ a: { selector: '   ' } }).path).to.deep.equal(['a', 'selector']);
      expect(only({ a: '@href' }).path).to.deep.equal(['a']);
    });

    it('refuses selectors too long or nested too deep for the engine to compile safely', () => {
      expect(only({ a: Array.from({ length: 400 }, (_, i) => `.c${i}`).join(', ') }).type).to.equal('value_error.selector.too_long');
      expect(only({ a: `${':not('.repeat(17)}a${')'.repeat(17)}` }).type).to.equal('value_error.selector.too_deep');
      expect(parse({ a: `${':not('.repeat(16)}a${')'.repeat(16)}` })).to.have.length(1);
    });

    it(`allows ${MAX_RULES} rules counting the nested ones, and refuses one more`, () => {
      const nested = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`n${i}`, 'p']));
      const top = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`t${i}`, 'p']));
      expect(parse({ ...top, list: { selector: 'li', output: nested } })).to.have.length(51);
      const issue = only({ ...top, list: { selector: 'li', output: { ...nested, one: 'p' } } });
      expect(issue).to.deep.include({ path: [], type: 'value_error.extract_rules.too_many' });
      expect(issue.msg).to.contain(`at most ${MAX_RULES} rules`);
    });

    it(`allows rules nested ${MAX_LEVELS} levels deep and refuses a sixth level`, () => {
      const levels = (n: number): unknown => (n === 1 ? { leaf: 'p' } : { deeper: { selector: 'div', output: levels(n - 1) } });
      expect(() => parse(levels(MAX_LEVELS))).not.to.throw();
      const issue = only(levels(MAX_LEVELS + 1));
      expect(issue.path).to.deep.equal(['deeper', 'output', 'deeper', 'output', 'deeper', 'output', 'deeper', 'output', 'deeper', 'output']);
      expect(issue.type).to.equal('value_error.extract_rules.too_deep');
    });

    it(`refuses text longer than ${MAX_RULES_BYTES} bytes, counted in UTF-8`, () => {
      const fill = (bytes: number, char: string) => `{"a": "p", "b": "p[title='${char.repeat(bytes)}']"}`;
      const base = Buffer.byteLength(fill(0, 'x'));
      expect(() => parseExtractRules(fill(MAX_RULES_BYTES - base, 'x'))).to.throw(ExtractRulesError, 'longer than 2,000 characters');
      expect(only(fill(MAX_RULES_BYTES - base + 1, 'x'))).to.deep.include({ path: [], type: 'value_error.any_str.max_length' });
      expect(only(fill(Math.ceil((MAX_RULES_BYTES - base) / 2) + 1, 'é')).type).to.equal('value_error.any_str.max_length');
    });

    it('refuses deeply nested JSON at the level limit without walking it all', () => {
      let value = '"p"';
      for (let i = 0; i < 1_000; i++) value = `{"selector":"div","output":{"x":${value}}}`;
      expect(Buffer.byteLength(value)).to.be.below(MAX_RULES_BYTES);
      expect(only(`{"x": ${value}}`).type).to.equal('value_error.extract_rules.too_deep');
    });
  });
});
