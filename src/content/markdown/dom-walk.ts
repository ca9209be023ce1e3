// Document-order traversal without recursion: pages reach this folder with up to MAX_DOM_DEPTH
// levels, and a loop costs no stack whatever their shape.

import type { ElementNode } from './dom/nodes.js';

/** What the visitor wants done with the element it was shown. */
export type Visit = 'descend' | 'skip' | 'remove' | 'stop';

/**
 * Shows `visit` every element below `root` (not `root` itself) in document order, with its depth
 * below `root` (1 for a child). 'skip' passes over the element's subtree, 'remove' takes the
 * element out of the tree; the walk carries on after either. 'stop' ends the walk.
 */
export function walkElements(root: ElementNode, visit: (element: ElementNode, depth: number) => Visit): void {
  let element = root.firstElementChild;
  let depth = 1;
  while (element !== null) {
    const action = visit(element, depth);
    if (action === 'stop') return;
    if (action === 'descend' && element.firstElementChild !== null) {
      element = element.firstElementChild;
      depth++;
      continue;
    }
    // The next element is found before a removal, which would cut the way back up.
    let next: ElementNode | null = null;
    for (let at: ElementNode | null = element; at !== null && at !== root; at = at.parentElement, depth--) {
      if (at.nextElementSibling !== null) {
        next = at.nextElementSibling;
        break;
      }
    }
    if (action === 'remove') element.remove();
    element = next;
  }
}

/** Replaces `element` by its children, keeping their text where the element stood. */
export function unwrap(element: ElementNode): void {
  const parent = element.parentNode;
  if (parent === null) return;
  while (element.firstChild !== null) parent.insertBefore(element.firstChild, element);
  element.remove();
}
