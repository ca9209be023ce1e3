import { compile, type Options } from 'css-select';
import { parse, type Selector } from 'css-what';
import { Element, isTag, type AnyNode, type ParentNode } from 'domhandler';
import { getAttributeValue, getChildren, getName, getParent, getSiblings, hasAttrib, prevElementSibling, removeSubsets } from 'domutils';
import { nextInside, nodeText } from './node-text.js';
import { WorkMeter } from './work-meter.js';

/** A rule's selector, compiled once and run against every element its rule is applied in. */
export interface CssQuery {
  readonly test: (element: Element) => boolean;
  /**
   * Set for a nested rule's selector: the one-element context it was compiled against, whose slot
   * is pointed at each match of the parent rule before searching in it (the way css-select's own
   * :has() reuses one compiled selector for every element).
   */
  readonly scope: Element[] | undefined;
  /** The selector starts with `+` or `~`: it reaches the scope's following siblings, not only its descendants. */
  readonly siblings: boolean;
  /** The selector's subject is :scope (`:scope`, `:scope.ad`): the scope itself is one of the elements it may match. */
  readonly self: boolean;
  readonly meter: WorkMeter;
}

/**
 * css-select's view of the DOM: domutils' functions, each spending the extraction's steps (the
 * engine's own walks, up to ancestors and across siblings, are where a hostile page costs most).
 */
function options(meter: WorkMeter): Options<AnyNode, Element> {
  return {
    adapter: {
      isTag,
      getAttributeValue,
      getName,
      hasAttrib,
      removeSubsets,
      getChildren: (node) => {
        meter.spend();
        return getChildren(node);
      },
      getParent: (node) => {
        meter.spend();
        return getParent(node);
      },
      getSiblings: (node) => {
        const siblings = getSiblings(node);
        meter.spend(siblings.length);
        return siblings;
      },
      prevElementSibling: (node) => {
        meter.spend();
        return prevElementSibling(node);
      },
      // :contains() and :empty read text; domutils' getText recurses and overflows on deep pages.
      getText: (node) => nodeText(node, meter),
    },
    // css-select caches descendant and :has() results per element; with the scope changing under
    // one compiled selector, a cached answer would be one about the previous scope.
    cacheResults: false,
  };
}

/**
 * Compiles a CSS selector; throws (css-what's or css-select's error) when it is not one that
 * css-select can run. A nested one is relative to its scope (css-select's relative selectors,
 * given the scope as context): `li .name` applied in a match finds .name elements inside it under
 * an li that is the match or inside it, never above it; `> b`, `+ b` and `~ b` start from the match, and `:scope`
 * is the match itself (`:scope@data-id` reads its own attribute). A top-level one is matched
 * against the whole document, `:scope` being its root element.
 */
export function compileQuery(selector: string | Selector[][], nested: boolean, meter = new WorkMeter()): CssQuery {
  const tokens = typeof selector === 'string' ? parse(selector) : selector;
  if (!nested) return { test: compile(tokens, options(meter)), scope: undefined, siblings: false, self: false, meter };
  // Read before compiling: css-select rewrites the tokens it is given (prefixing `:scope`).
  const siblings = tokens.some(startsAtSibling);
  const self = tokens.some(subjectIsScope);
  const scope = [placeholder()];
  const test = compile<AnyNode, Element>(tokens, options(meter), scope);
  return { test, scope, siblings, self, meter };
}

export function isCombinator(token: Selector | undefined): boolean {
  const type = token?.type;
  return type === 'child' || type === 'descendant' || type === 'adjacent' || type === 'sibling' || type === 'parent' || type === 'column-combinator';
}

const isScope = (token: Selector | undefined) => token?.type === 'pseudo' && token.name === 'scope';
const isSiblingCombinator = (token: Selector | undefined) => token?.type === 'adjacent' || token?.type === 'sibling';

function startsAtSibling([first, second]: Selector[]): boolean {
  return isSiblingCombinator(first) || (isScope(first) && isSiblingCombinator(second));
}

/** The compound after the selector's last combinator (the elements it yields) holds :scope. */
function subjectIsScope(compound: Selector[]): boolean {
  let i = compound.length - 1;
  while (i >= 0 && !isCombinator(compound[i])) i--;
  return compound.slice(i + 1).some(isScope);
}

/**
 * css-select treats a context element as a scope (prefixing the selector with `:scope`) only if it
 * is an element with a parent element; the real scope replaces this one before every search.
 */
function placeholder(): Element {
  const holder = new Element('div', {});
  const element = new Element('div', {});
  element.parent = holder;
  return element;
}

/**
 * Calls `visit` with each element the query matches in `within` (a document, or the match of the
 * parent rule), in document order, until `visit` returns false. An explicit walk over the nodes'
 * links instead of css-select's selectAll, whose queue costs time quadratic in a deep page's depth.
 */
export function eachMatch(query: CssQuery, within: ParentNode, visit: (element: Element) => boolean | void): void {
  let start: AnyNode | null;
  let boundary: AnyNode | null;
  if (query.scope && isTag(within)) {
    query.scope[0] = within;
    if (query.self && !query.siblings && query.test(within) && visit(within) === false) return;
    if (query.siblings) {
      // As css-select's selectAll: the scope and its following siblings, with their subtrees.
      start = within;
      boundary = within.parent;
    } else {
      start = within.children[0] ?? null;
      boundary = within;
    }
  } else {
    start = within.children[0] ?? null;
    boundary = within;
  }
  let node: AnyNode | null = start;
  while (node) {
    query.meter.spend();
    if (isTag(node)) {
      if (query.test(node) && visit(node) === false) return;
      // Like css-select: a <template>'s content is not part of the document it sits in.
      if (node.name !== 'template' && node.children.length > 0) {
        node = node.children[0];
        continue;
      }
    }
    node = nextInside(node, boundary);
  }
}

export function firstMatch(query: CssQuery, within: ParentNode): Element | null {
  let found: Element | null = null;
  eachMatch(query, within, (element) => {
    found = element;
    return false;
  });
  return found;
}
