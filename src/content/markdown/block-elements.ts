import { TextNode, type ElementNode } from './dom/nodes.js';

/** The elements turndown treats as blocks (its own list, lib/turndown.cjs.js, 7.2). */
export const BLOCKS: ReadonlySet<string> = new Set([
  'address', 'article', 'aside', 'audio', 'blockquote', 'body', 'canvas', 'center', 'dd', 'dir', 'div', 'dl',
  'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'header', 'hgroup', 'hr', 'html', 'isindex', 'li', 'main', 'menu', 'nav', 'noframes', 'noscript', 'ol',
  'output', 'p', 'pre', 'section', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
]);

/** White space as turndown collapses it (not \f, nor a no-break space: those it keeps). */
export const COLLAPSIBLE = /^[ \t\n\r]*$/;

/**
 * Removes the white space right before `block`, which writes nothing: turndown empties it when it
 * reaches the block (outside a <pre>, which the caller checks). Only for a block that stays: had
 * the block gone, that space would stand between the text on either side. Not keeping it spares
 * turndown a fifth of the text nodes of a typical page.
 */
export function dropSpaceBefore(block: ElementNode): void {
  const before = block.previousSibling;
  if (before instanceof TextNode && COLLAPSIBLE.test(before.data)) before.remove();
}
