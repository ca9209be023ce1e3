import type { AnyNode } from 'domhandler';
import type { WorkMeter } from './work-meter.js';

/**
 * A node's textContent as a browser gives it: the data of every descendant text node, in
 * document order; comments are not text. A <template>'s content is not its children in a
 * browser's DOM (it lives in a separate fragment), so it is left out here too, as css-select
 * leaves it out of matching.
 *
 * Walked with the nodes' own parent/next links instead of recursion or a stack array: a hostile
 * page nests 100,000 elements, which overflows the call stack of a recursive walk (domutils'
 * textContent does) and costs nothing extra this way.
 */
export function nodeText(node: AnyNode, meter?: WorkMeter): string {
  if (node.type === 'text') return node.data;
  if (!hasWalkableChildren(node)) return '';
  let text = '';
  let current: AnyNode | null = firstChild(node);
  while (current) {
    meter?.spend();
    if (current.type === 'text') text += current.data;
    const down = hasWalkableChildren(current) ? firstChild(current) : null;
    if (down) {
      current = down;
      continue;
    }
    current = nextInside(current, node);
  }
  return text;
}

/** `clean`: white space trimmed at both ends and every run inside folded to one space. JavaScript's \s, so no-break and other Unicode spaces fold too, as Python's str.split() (which the hosted APIs use) folds them. */
export function cleanText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function hasWalkableChildren(node: AnyNode): boolean {
  if (node.type === 'tag' || node.type === 'script' || node.type === 'style') return node.name !== 'template';
  return node.type === 'root' || node.type === 'cdata';
}

function firstChild(node: AnyNode): AnyNode | null {
  return 'children' in node && node.children.length > 0 ? node.children[0] : null;
}

/** The node after `node` in document order once its subtree is done, without leaving `root`'s subtree; null at its end. */
export function nextInside(node: AnyNode, root: AnyNode | null): AnyNode | null {
  let current: AnyNode = node;
  while (!current.next) {
    const parent = current.parent;
    if (!parent || parent === root) return null;
    current = parent;
  }
  return current.next;
}
