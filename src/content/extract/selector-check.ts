import { parse, type Selector } from 'css-what';
import { compileQuery, isCombinator } from './css-query.js';

export interface SelectorProblem {
  msg: string;
  type: string;
}

/** Long enough for any selector a person writes; a list of thousands of alternatives compiles to a chain of calls that a worker's stack cannot run. */
export const MAX_SELECTOR_LENGTH = 2_000;
/** :not(:is(:has(...))): css-what and css-select recurse per level, and compiling takes time quadratic in the depth. */
export const MAX_SELECTOR_NESTING = 16;

const XPATH_START = /^\s*(\/|\.\.?\/|\(|\.\.?\s*$)/;
const XPATH_AXIS = /(^|[\s/[(])(ancestor|ancestor-or-self|attribute|child|descendant|descendant-or-self|following|following-sibling|namespace|parent|preceding|preceding-sibling|self)::/;
const XPATH_PARTS = /\[\s*@|\b(text|node|last|position)\(\s*\)|\bcontains\s*\(\s*@/;
const ESCAPED = /\\[\s\S]/g;
const QUOTED = /"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g;
/** CSS has no `/` outside an attribute's value; XPath steps (`div/a`) do. */
const BRACKETED = /\[[^\]]*\]/g;

/**
 * Why the selector cannot be used, or undefined when css-select compiles it. Checked when the
 * rules are parsed, so that a bad selector is the caller's 422 before anything is fetched, never a
 * failure (500) once the page is in.
 */
export function selectorProblem(selector: string, nested: boolean): SelectorProblem | undefined {
  if (!selector.trim()) return { msg: 'the selector is empty', type: 'value_error.selector.empty' };
  if (selector.length > MAX_SELECTOR_LENGTH) {
    return { msg: `the selector is longer than ${MAX_SELECTOR_LENGTH.toLocaleString('en')} characters`, type: 'value_error.selector.too_long' };
  }
  // Escaped characters and quoted strings are values, not syntax: `.w-1\/2` and `a[href^="/"]` are CSS.
  const bare = selector.replace(ESCAPED, '_').replace(QUOTED, '""');
  if (XPATH_START.test(bare) || XPATH_AXIS.test(bare) || XPATH_PARTS.test(bare) || bare.replace(BRACKETED, '[]').includes('/')) {
    return { msg: 'XPath is not supported; use a CSS selector', type: 'value_error.selector.xpath' };
  }
  if (nesting(bare) > MAX_SELECTOR_NESTING) {
    return { msg: `the selector nests parentheses more than ${MAX_SELECTOR_NESTING} deep`, type: 'value_error.selector.too_deep' };
  }
  let tokens: Selector[][];
  try {
    tokens = parse(selector);
  } catch (err) {
    return invalid(err);
  }
  const problem = tokenProblem(tokens);
  if (problem) return problem;
  try {
    compileQuery(tokens, nested);
  } catch (err) {
    return invalid(err);
  }
  return undefined;
}

function invalid(err: unknown): SelectorProblem {
  const reason = err instanceof RangeError ? 'it nests too deeply' : err instanceof Error ? err.message : String(err);
  return { msg: `not a valid CSS selector: ${reason}`, type: 'value_error.selector' };
}

/** What css-what accepts but would silently match nothing, or what css-select refuses with a message about itself rather than the caller's choices. */
function tokenProblem(tokens: Selector[][]): SelectorProblem | undefined {
  for (const compound of tokens) {
    const last = compound.at(-1);
    // css-what keeps a combinator with nothing after it (`p >`), which css-select then reads as `p > *`; a browser refuses it.
    if (last && isCombinator(last)) return { msg: 'not a valid CSS selector: it ends in a combinator', type: 'value_error.selector' };
    for (const token of compound) {
      if (token.type === 'pseudo-element') {
        return {
          msg: `pseudo-elements such as ::${token.name} are not supported: a rule's output ("text", "html" or "@attribute") says what to take from each match`,
          type: 'value_error.selector',
        };
      }
      // css-what reads `a@href` as the tags `a` and `@href`: an attribute shorthand where a selector alone belongs.
      if (token.type === 'tag' && token.name.includes('@')) {
        return {
          msg: `not a valid CSS selector: "@${token.name.split('@').pop() ?? ''}" is not a tag name; a rule object names the attribute in its output ("@name")`,
          type: 'value_error.selector',
        };
      }
      if (token.type === 'pseudo' && Array.isArray(token.data)) {
        const inner = tokenProblem(token.data);
        if (inner) return inner;
      }
    }
  }
  return undefined;
}

/** The deepest nesting of parentheses and brackets (escapes and quoted strings already blanked). */
function nesting(bare: string): number {
  let depth = 0;
  let deepest = 0;
  for (const c of bare) {
    if (c === '(' || c === '[') deepest = Math.max(deepest, ++depth);
    else if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
  }
  return deepest;
}
