import { ExtractRulesError, type ExtractRulesIssue } from './extract-rules-error.js';
import { selectorProblem } from './selector-check.js';
import { attributeOutput, splitAttribute } from './selector-shorthand.js';

/**
 * The extract_rules grammar of the hosted scraping APIs, parsed into plain data (structured-
 * cloneable, so that it can be handed to an HTML worker thread; selectors are compiled there).
 *
 *   { "<name>": "<css selector>" }              the first match's text, or null
 *   { "<name>": "<css selector>@<attribute>" }   the first match's attribute, or null
 *   { "<name>": { "selector": "<css>", "type": "item" | "list",
 *                 "output": "text" | "html" | "@<attribute>" | "table_array" | "table_json" | { <rules> },
 *                 "clean": true | false } }
 */
export type ExtractRules = ExtractRule[];

export interface ExtractRule {
  /** The key the rule's value has in the result (any non-empty string). */
  name: string;
  selector: string;
  /** item: the first match's output, or null; list: every match's output, [] for none. */
  type: 'item' | 'list';
  output: RuleOutput;
  /**
   * Trim and fold white space in text, attribute and table-cell values. True unless the rule says
   * otherwise, as the hosted APIs default it; it changes nothing in html or nested outputs.
   */
  clean: boolean;
}

export type RuleOutput =
  | { kind: 'text' }
  | { kind: 'html' }
  | { kind: 'attribute'; name: string }
  | { kind: 'table_array' }
  | { kind: 'table_json' }
  /** Rules applied inside each match: their selectors find elements in it. */
  | { kind: 'rules'; rules: ExtractRules };

export const MAX_RULES = 100;
/** The top-level rules are level 1; a rule object's nested rules are one level deeper. */
export const MAX_LEVELS = 5;
export const MAX_RULES_BYTES = 64 * 1024;

const RULE_KEYS = new Set(['selector', 'type', 'output', 'clean']);
const KEYWORD_OUTPUTS = new Set(['text', 'html', 'table_array', 'table_json'] as const);
const OUTPUTS_MSG = 'output must be "text", "html", "@<attribute>", "table_array", "table_json" or an object of rules';

type Path = Array<string | number>;

/** Parses extract_rules as the caller sent them (JSON text, already URL-decoded); throws ExtractRulesError listing every issue found. */
export function parseExtractRules(raw: string): ExtractRules {
  if (Buffer.byteLength(raw, 'utf8') > MAX_RULES_BYTES) {
    throw ExtractRulesError.of([], `extract_rules is longer than ${MAX_RULES_BYTES.toLocaleString('en')} bytes`, 'value_error.any_str.max_length');
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    // V8's message says where: "... in JSON at position 9", or quotes the text around the fault.
    throw ExtractRulesError.of([], `extract_rules is not valid JSON: ${err instanceof Error ? err.message : String(err)}`, 'value_error.jsondecode');
  }
  return validateExtractRules(value);
}

/** The same checks for rules that arrive already parsed (a JSON request body). */
export function validateExtractRules(value: unknown): ExtractRules {
  if (!isObject(value)) throw ExtractRulesError.of([], 'extract_rules must be a JSON object', 'type_error.dict');
  const reader = new RulesReader();
  const rules = reader.rules(value, [], 1);
  if (reader.issues.length > 0) throw new ExtractRulesError(reader.issues);
  return rules;
}

class RulesReader {
  readonly issues: ExtractRulesIssue[] = [];
  private count = 0;

  rules(value: Record<string, unknown>, path: Path, level: number): ExtractRules {
    const names = Object.keys(value);
    if (names.length === 0) this.issue(path, level === 1 ? 'extract_rules must hold at least one rule' : 'an object of rules must hold at least one rule', 'value_error.empty');
    this.count += names.length;
    // Thrown at once: a limit passed makes the rest of the walk work done for nothing.
    if (this.count > MAX_RULES) {
      throw ExtractRulesError.of([], `at most ${MAX_RULES} rules are allowed, counting the nested ones`, 'value_error.extract_rules.too_many');
    }
    const rules: ExtractRules = [];
    for (const name of names) {
      const rule = this.rule(name, value[name], [...path, name], level);
      if (rule) rules.push(rule);
    }
    return rules;
  }

  private rule(name: string, value: unknown, path: Path, level: number): ExtractRule | undefined {
    if (name === '') {
      this.issue(path, "a rule's name must not be empty", 'value_error.empty');
      return undefined;
    }
    if (typeof value === 'string') return this.shorthand(name, value, path, level);
    if (isObject(value)) return this.full(name, value, path, level);
    this.issue(path, 'a rule is a CSS selector (a string) or an object with a "selector"', 'type_error');
    return undefined;
  }

  private shorthand(name: string, text: string, path: Path, level: number): ExtractRule | undefined {
    const split = splitAttribute(text.trim());
    const selector = split ? split.selector : text.trim();
    if (!this.selector(selector, path, level)) return undefined;
    const output: RuleOutput = split ? { kind: 'attribute', name: split.attribute } : { kind: 'text' };
    return { name, selector, type: 'item', output, clean: true };
  }

  private full(name: string, value: Record<string, unknown>, path: Path, level: number): ExtractRule | undefined {
    const before = this.issues.length;
    for (const key of Object.keys(value)) {
      if (!RULE_KEYS.has(key)) this.issue([...path, key], `unknown key "${key}": a rule object takes selector, type, output and clean`, 'value_error.extra');
    }
    // Absent means the default; null is a wrong value like any other.
    const type = 'type' in value ? value.type : 'item';
    if (type !== 'item' && type !== 'list') this.issue([...path, 'type'], 'type must be "item" or "list"', 'type_error.enum');
    const clean = 'clean' in value ? value.clean : true;
    if (typeof clean !== 'boolean') this.issue([...path, 'clean'], 'clean must be true or false', 'type_error.bool');
    const named = 'output' in value;
    let output = named ? this.output(value.output, [...path, 'output'], level) : ({ kind: 'text' } as const);
    let selector = '';
    if (!('selector' in value)) {
      this.issue([...path, 'selector'], 'field required', 'value_error.missing');
    } else if (typeof value.selector !== 'string') {
      this.issue([...path, 'selector'], 'the selector must be a string', 'type_error.str');
    } else {
      // The shorthand's attribute is taken here too, when the rule names no output of its own.
      const split = named ? undefined : splitAttribute(value.selector.trim());
      selector = split ? split.selector : value.selector.trim();
      if (split) output = { kind: 'attribute', name: split.attribute };
      this.selector(selector, [...path, 'selector'], level);
    }
    if (this.issues.length > before || !output || (type !== 'item' && type !== 'list') || typeof clean !== 'boolean') return undefined;
    return { name, selector, type, output, clean };
  }

  private output(value: unknown, path: Path, level: number): RuleOutput | undefined {
    if (typeof value === 'string') {
      for (const keyword of KEYWORD_OUTPUTS) if (value === keyword) return { kind: keyword };
      const attribute = attributeOutput(value);
      if (attribute !== undefined) return { kind: 'attribute', name: attribute };
      this.issue(path, OUTPUTS_MSG, 'type_error.enum');
      return undefined;
    }
    if (!isObject(value)) {
      this.issue(path, OUTPUTS_MSG, 'type_error');
      return undefined;
    }
    if (level + 1 > MAX_LEVELS) {
      this.issue(path, `rules nest at most ${MAX_LEVELS} levels deep (the top level is level 1)`, 'value_error.extract_rules.too_deep');
      return undefined;
    }
    return { kind: 'rules', rules: this.rules(value, path, level + 1) };
  }

  /** True when the selector is usable; a nested rule's is compiled as relative to its scope, as it will run. */
  private selector(selector: string, path: Path, level: number): boolean {
    const problem = selectorProblem(selector, level > 1);
    if (problem) this.issue(path, problem.msg, problem.type);
    return !problem;
  }

  private issue(path: Path, msg: string, type: string): void {
    this.issues.push({ path, msg, type });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
