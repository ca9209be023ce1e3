import type { Document, Element, ParentNode } from 'domhandler';
import { compileQuery, eachMatch, firstMatch, type CssQuery } from './css-query.js';
import { limitDepth } from './depth-limit.js';
import { parseMetered } from './metered-parse.js';
import { ExtractRulesError } from './extract-rules-error.js';
import type { ExtractRule, ExtractRules } from './extract-rules.js';
import { cleanText, nodeText } from './node-text.js';
import { outerHtml } from './outer-html.js';
import { tableArray, tableJson, type TableReading } from './table-output.js';
import { jsonStringLength, NULL_CHARS } from './json-size.js';
import { MAX_WORK_STEPS, WorkMeter } from './work-meter.js';

/** What a rule yields: text or an attribute (or null for no match), and arrays and objects of those. */
export type Extracted = string | null | Extracted[] | { [key: string]: Extracted };
export type ExtractedObject = { [name: string]: Extracted };

export interface ExtractLimits {
  /** Values in all lists (every list rule's items and every table's rows, at every level) that one extraction may produce. */
  maxResults: number;
  /**
   * Characters of the JSON one extraction may produce, every one counted: keys, strings with
   * their escapes, nulls, brackets, commas. Three times the largest page the service fetches
   * (10 MB). Without it, a list of the html (or text) of 10,000 nested elements, each holding most
   * of the page, would be gigabytes; so would 10,000 list items of a hundred nested rules with
   * long names that match nothing (all nulls). Counted before each part is made: the cap stops
   * the extraction before the memory is spent.
   */
  maxResultChars: number;
  /** See work-meter.ts. */
  maxWorkSteps: number;
}

export const EXTRACT_LIMITS: Readonly<ExtractLimits> = {
  maxResults: 10_000,
  maxResultChars: 32 * 1024 * 1024,
  maxWorkSteps: MAX_WORK_STEPS,
};

const PARSE_SHIFTS_PER_STEP = 32;

interface CompiledRule {
  rule: ExtractRule;
  /** Its key in the JSON: the quoted name and the colon. */
  keyChars: number;
  path: Array<string | number>;
  query: CssQuery;
  nested: CompiledRule[] | undefined;
}

/**
 * Applies parsed extract_rules to a page: parsed once with htmlparser2 (as the rest of the
 * service parses) and nested no deeper than a browser nests it (depth-limit.ts), every selector
 * compiled once and run from the document, or from each match of the enclosing rule.
 * Synchronous and pure: run inline or in an HTML worker. Attribute values are as the page has
 * them (a relative href stays relative). Throws ExtractRulesError when the page makes the rules
 * produce more list values or characters, or take more steps, than the limits allow
 * (EXTRACT_LIMITS unless given lower or higher ones).
 */
export function extract(
  html: string,
  rules: ExtractRules,
  limits: Partial<ExtractLimits> = {},
  /** Given the parsed page before the rules touch it, and how deep its elements nested: one parse serves other readings too. */
  alsoRead?: (document: Document, deepest: number) => void,
): ExtractedObject {
  const chosen = { ...EXTRACT_LIMITS, ...limits };
  const meter = new WorkMeter(chosen.maxWorkSteps);
  let deepest = 0;
  // The parser's own cost, in the meter's unit: about 32 elements shifted along its stack of open
  // elements take the time of one step (measured: 0.8 ns against 25 to 50 ns), so the page's
  // nesting is paid for like the rules' walks. 56,000 nested elements exhaust the budget, in 1.3 s.
  const document = parseMetered(html, (depth) => {
    deepest = Math.max(deepest, depth);
    meter.spend(Math.ceil(depth / PARSE_SHIFTS_PER_STEP));
  });
  alsoRead?.(document, deepest);
  limitDepth(document);
  return new Extraction(meter, chosen).object(compileRules(rules, [], false, meter), document);
}

function compileRules(rules: ExtractRules, path: Array<string | number>, nested: boolean, meter: WorkMeter): CompiledRule[] {
  return rules.map((rule) => {
    const rulePath = [...path, rule.name];
    const { output } = rule;
    return {
      rule,
      keyChars: jsonStringLength(rule.name) + 1,
      path: rulePath,
      query: compileQuery(rule.selector, nested, meter),
      nested: output.kind === 'rules' ? compileRules(output.rules, [...rulePath, 'output'], true, meter) : undefined,
    };
  });
}

class Extraction {
  private results = 0;
  private chars = 0;

  constructor(
    private readonly meter: WorkMeter,
    private readonly limits: ExtractLimits,
  ) {}

  object(rules: CompiledRule[], within: ParentNode): ExtractedObject {
    // The braces and commas, then each key before its value is made.
    this.charge(rules[0], 2 + Math.max(0, rules.length - 1));
    // fromEntries defines each key, so a rule named "__proto__" is a key like any other.
    return Object.fromEntries(
      rules.map((compiled) => {
        this.charge(compiled, compiled.keyChars);
        return [compiled.rule.name, this.rule(compiled, within)];
      }),
    );
  }

  private rule(compiled: CompiledRule, within: ParentNode): Extracted {
    const outer = this.meter.path;
    this.meter.path = compiled.path;
    try {
      return this.matches(compiled, within);
    } finally {
      this.meter.path = outer;
    }
  }

  private matches(compiled: CompiledRule, within: ParentNode): Extracted {
    if (compiled.rule.type === 'item') {
      const match = firstMatch(compiled.query, within);
      return match ? this.output(compiled, match) : this.none(compiled);
    }
    const values: Extracted[] = [];
    this.charge(compiled, 2);
    eachMatch(compiled.query, within, (match) => {
      // Counted before the value is made: past the cap, no further work is done.
      this.countResult(compiled);
      if (values.length > 0) this.charge(compiled, 1);
      values.push(this.output(compiled, match));
    });
    return values;
  }

  private output(compiled: CompiledRule, match: Element): Extracted {
    const { output, clean } = compiled.rule;
    switch (output.kind) {
      case 'text':
        return this.textOf(compiled, match);
      case 'html':
        return this.text(compiled, outerHtml(match, this.meter));
      case 'attribute': {
        // Own keys only: the attribute map is a plain object, and `@constructor` must not find Object's.
        if (!Object.hasOwn(match.attribs, output.name)) return this.none(compiled);
        const value = match.attribs[output.name];
        return this.text(compiled, clean ? cleanText(value) : value);
      }
      case 'table_array':
        return tableArray(match, this.tableReading(compiled));
      case 'table_json':
        return tableJson(match, this.tableReading(compiled));
      case 'rules':
        return this.object(compiled.nested ?? [], match);
    }
  }

  private tableReading(compiled: CompiledRule): TableReading {
    return {
      cellText: (cell) => this.textOf(compiled, cell),
      keyText: (cell) => this.read(compiled, cell),
      onRow: () => this.countResult(compiled),
      charge: (chars) => this.charge(compiled, chars),
    };
  }

  private textOf(compiled: CompiledRule, element: Element): string {
    return this.text(compiled, this.read(compiled, element));
  }

  /** The element's text as the rule reads it, not yet counted as a value of the answer. */
  private read(compiled: CompiledRule, element: Element): string {
    const text = nodeText(element, this.meter);
    return compiled.rule.clean ? cleanText(text) : text;
  }

  private countResult(compiled: CompiledRule): void {
    if (++this.results > this.limits.maxResults) {
      throw ExtractRulesError.of(compiled.path, `more than ${this.limits.maxResults.toLocaleString('en')} results`, 'value_error.extract_rules.too_many_results');
    }
  }

  private text(compiled: CompiledRule, value: string): string {
    this.charge(compiled, jsonStringLength(value));
    return value;
  }

  private none(compiled: CompiledRule): null {
    this.charge(compiled, NULL_CHARS);
    return null;
  }

  /** Counts `chars` more of the answer's JSON, before they are made; `compiled` is the rule named past the cap. */
  private charge(compiled: CompiledRule | undefined, chars: number): void {
    this.chars += chars;
    if (this.chars > this.limits.maxResultChars) {
      throw ExtractRulesError.of(
        compiled?.path ?? [],
        `the extracted answer exceeds ${this.limits.maxResultChars.toLocaleString('en')} characters of JSON`,
        'value_error.extract_rules.too_large',
      );
    }
  }
}
