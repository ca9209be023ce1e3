import { isTag, type AnyNode, type Element, type ParentNode } from 'domhandler';
import { nextInside } from '../extract/node-text.js';

/**
 * Calls `visit` with every element below `root`, in document order, until it returns false. A
 * walk over the nodes' links, never recursion: a page nests as deep as it likes.
 */
export function eachElement(root: ParentNode, visit: (element: Element) => boolean | void): void {
  let node: AnyNode | null = root.children[0] ?? null;
  while (node) {
    if (isTag(node)) {
      if (visit(node) === false) return;
      if (node.children.length > 0) {
        node = node.children[0];
        continue;
      }
    }
    node = nextInside(node, root);
  }
}
