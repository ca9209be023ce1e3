// Markdown nests a list item or a quote by indenting or prefixing every line inside it, and
// turndown re-indents the whole inner text at each level: a chain of n nested lists writes n²/2
// spaces and copies n³/6 characters (250 levels: 18 s for 350 KB). An item or quote inside
// MAX_INDENTATION others becomes one paragraph of its text.

import { ElementNode, nextInside, nextOutside, type DomNode } from './dom/nodes.js';
import { isNeverContent } from './never-content.js';

/** Elements that indent or prefix every line of their content in markdown (a list does not). */
export const INDENTING: ReadonlySet<string> = new Set(['li', 'blockquote']);

/** Items or quotes within items or quotes, beyond which nothing is indented further. */
export const MAX_INDENTATION = 10;

/** How many list items and quotes enclose `element`, up to `root`. */
export function indentation(element: ElementNode, root: ElementNode): number {
  let levels = 0;
  for (let at = element.parentElement; at !== null && at !== root; at = at.parentElement) {
    if (INDENTING.has(at.localName)) levels++;
  }
  return levels;
}

/**
 * Replaces `element` by a <div> holding only its text, elements apart by a space. One pass over
 * the subtree, rather than rebuilding it level by level: a walk of the subtree per level.
 */
export function flattenToText(element: ElementNode): void {
  const block = new ElementNode('div');
  block.textContent = textOf(element);
  element.replaceWith(block);
}

function textOf(element: ElementNode): string {
  const parts: string[] = [];
  let node: DomNode | null = element.firstChild;
  while (node !== null) {
    if (node instanceof ElementNode) {
      if (isNeverContent(node)) {
        node = nextOutside(node, element);
        continue;
      }
      parts.push(' ');
    } else parts.push(node.textContent);
    node = nextInside(node, element);
  }
  return parts.join('');
}
