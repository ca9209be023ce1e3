// Markdown nests a list item or a quote by indenting or prefixing every line inside it, and
// turndown re-indents the whole inner text at each level: a chain of n nested lists writes n²/2
// spaces and copies n³/6 characters (250 levels: 18 s for 350 KB). An item or quote inside
// MAX_INDENTATION others becomes one paragraph of its text.

import { isElement } from './dom-walk.js';
import { isNeverContent } from './never-content.js';

/** Elements that indent or prefix every line of their content in markdown (a list does not). */
export const INDENTING: ReadonlySet<string> = new Set(['li', 'blockquote']);

/** Items or quotes within items or quotes, beyond which nothing is indented further. */
export const MAX_INDENTATION = 10;

/** How many list items and quotes enclose `element`, up to `root`. */
export function indentation(element: Element, root: Element): number {
  let levels = 0;
  for (let at = element.parentElement; at !== null && at !== root; at = at.parentElement) {
    if (INDENTING.has(at.localName)) levels++;
  }
  return levels;
}

/**
 * Replaces `element` by a <div> holding only its text, elements apart by a space. One pass over
 * the subtree: rebuilding it level by level would cost a walk of the subtree per level, as domino
 * detaches and re-attaches a moved node's whole subtree.
 */
export function flattenToText(element: Element): void {
  const block = element.ownerDocument.createElement('div');
  block.textContent = textOf(element);
  element.replaceWith(block);
}

function textOf(element: Element): string {
  const parts: string[] = [];
  let node: Node | null = element.firstChild;
  while (node !== null) {
    if (node.nodeType === 3) parts.push(node.nodeValue ?? '');
    else if (isElement(node) && !isNeverContent(node)) {
      parts.push(' ');
      if (node.firstChild !== null) {
        node = node.firstChild;
        continue;
      }
    }
    while (node !== null && node !== element && node.nextSibling === null) node = node.parentNode;
    node = node === null || node === element ? null : node.nextSibling;
  }
  return parts.join('');
}
