import { isTag, type AnyNode, type ChildNode, type Element, type ParentNode } from 'domhandler';
import { MAX_DOM_DEPTH } from '../dom-depth.js';
import { nextInside } from './node-text.js';


/**
 * Flattens the parsed page the way Chrome's parser builds it. Once MAX_DOM_DEPTH elements are
 * open (the document's top element counting as the first), an element that would be nested
 * deeper is attached to its would-be parent's parent instead: every element below level
 * MAX_DOM_DEPTH + 1 becomes a child of the level-MAX_DOM_DEPTH element, in document order, while
 * text and comments stay in the element they were written in. (htmlparser2 adds no <html> and
 * <body> a page leaves out, which Chrome does: such a page is cut two levels lower than there.) (Checked against Chromium: 600
 * nested divs give 90 empty ones; a <b> in the 511th keeps its text and moves up to the 510th.)
 *
 * A browser's DOM never holds 100,000 nested divs, so rules read what a browser would give; and
 * every walk up to the ancestors (css-select's descendant combinators and :scope, for each
 * candidate) and the queue of css-select's own :has() search, whose cost is the square of the
 * depth, stay bounded.
 */
export function limitDepth(document: ParentNode, maxDepth = MAX_DOM_DEPTH): void {
  let node: AnyNode | null = document.children[0] ?? null;
  let depth = 1;
  while (node) {
    if (isTag(node) && node.children.length > 0) {
      if (depth < maxDepth) {
        node = node.children[0];
        depth++;
        continue;
      }
      flattenBelow(node);
    }
    let current: AnyNode = node;
    while (!current.next) {
      const parent: ParentNode | null = current.parent;
      if (!parent || parent === document) return;
      current = parent;
      depth--;
    }
    node = current.next;
  }
}

/**
 * `deepest` is at the last level: the elements inside its children move up to be its children too,
 * each after the one it was in, in document order; every element keeps its text and comments.
 * One pass over the subtree, the children relinked once.
 */
function flattenBelow(deepest: Element): void {
  const children: ChildNode[] = [];
  let moved = false;
  for (const child of deepest.children) {
    children.push(child);
    if (!isTag(child)) continue;
    const inside: Element[] = [];
    let current: AnyNode | null = child.children[0] ?? null;
    while (current) {
      if (isTag(current)) inside.push(current);
      current = isTag(current) && current.children.length > 0 ? current.children[0] : nextInside(current, child);
    }
    if (inside.length === 0) continue;
    moved = true;
    for (const element of [child, ...inside]) link(element, element.children.filter((node) => !isTag(node)));
    // One push at a time: push(...inside) of 100,000 arguments overflows the stack.
    for (const element of inside) children.push(element);
  }
  if (moved) link(deepest, children);
}

/** Makes `children` the parent's, with their parent, prev and next links to match. */
function link(parent: ParentNode, children: ChildNode[]): void {
  parent.children = children;
  for (let i = 0; i < children.length; i++) {
    children[i].parent = parent;
    children[i].prev = children[i - 1] ?? null;
    children[i].next = children[i + 1] ?? null;
  }
}
