// turndown decides for every element whether it is blank by reading its text and then searching
// its subtree once for each of 27 tag names: an empty <div> costs 24 µs, eight times an element
// with text. Pages are full of empty elements (icon-font <i>s, clearfix and spacer <div>s, empty
// paragraphs), and a blank element writes nothing when inline, and a paragraph break when a block,
// which only matters between two runs of inline content. The empty ones that write nothing that
// matters are removed before conversion: the markdown is the same.

import { BLOCKS } from './block-elements.js';
import { ElementNode, type DomNode } from './dom/nodes.js';

// turndown's own lists (lib/turndown.cjs.js, 7.2): what it treats as void, and as meaningful
// although blank.
const KEPT_WHEN_EMPTY = new Set([
  // void
  'area', 'base', 'br', 'col', 'command', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param',
  'source', 'track', 'wbr',
  // meaningful when blank
  'a', 'table', 'thead', 'tbody', 'tfoot', 'th', 'td', 'iframe', 'script', 'audio', 'video',
  // an empty item still takes its number in an ordered list
  'li',
]);

/**
 * Whether `element` is empty and writes nothing that matters: an empty inline element, or a
 * block with nothing but white space inside that does not stand between two runs of inline
 * content. (The parse keeps no comments.)
 */
export function isRemovableBlank(element: ElementNode): boolean {
  const tag = element.localName;
  if (KEPT_WHEN_EMPTY.has(tag)) return false;
  const block = BLOCKS.has(tag);
  if (!isEmpty(element, block)) return false;
  return !block || !isInline(previousContent(element)) || !isInline(nextContent(element));
}

function isEmpty(element: ElementNode, whiteSpaceAllowed: boolean): boolean {
  for (let node = element.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === 3 && whiteSpaceAllowed && /^\s*$/.test(node.textContent)) continue;
    return false;
  }
  return true;
}

/** The sibling before `node` that is more than white space, if any. */
function previousContent(node: DomNode): DomNode | null {
  let at = node.previousSibling;
  while (at !== null && isNothing(at)) at = at.previousSibling;
  return at;
}

function nextContent(node: DomNode): DomNode | null {
  let at = node.nextSibling;
  while (at !== null && isNothing(at)) at = at.nextSibling;
  return at;
}

function isNothing(node: DomNode): boolean {
  return node.nodeType === 3 && /^\s*$/.test(node.textContent);
}

function isInline(node: DomNode | null): boolean {
  return node !== null && (node.nodeType === 3 || (node instanceof ElementNode && !BLOCKS.has(node.localName)));
}
