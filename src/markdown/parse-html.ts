import { createDocument, createDOMImplementation } from '@mixmark-io/domino';

/**
 * How deep elements may nest for a page to be converted as a tree; Chromium's parser stops
 * nesting at the same depth. Deeper, domino's tree builder turns quadratic (each start tag scans
 * the stack of open elements: 20,000 nested <div>s take 6 s to parse, 100,000 take 3.5 minutes)
 * and turndown, which recurses per level, overflows the stack near 1,500 levels.
 */
export const MAX_DEPTH = 512;

/** Thrown inside domino's tree builder to stop a parse that went deeper than MAX_DEPTH. */
class TooDeep extends Error {}

// domino exposes its parser class on every DOMImplementation; its stack of open elements grows
// only through push(), which is where the depth is known before any quadratic scan happens.
const openElements = createDOMImplementation().mozHTMLParser.ElementStack.prototype;
const push = openElements.push;

function pushWithinDepth(this: { elements: unknown[] }, element: unknown): void {
  if (this.elements.length >= MAX_DEPTH) throw new TooDeep();
  push.call(this, element);
}

/**
 * Parses `html` into a document with domino, the parser turndown itself uses, or returns null
 * when elements nest deeper than MAX_DEPTH (the parse stops there, so hostile nesting costs no
 * more than a page of that depth). The guard is installed on domino's shared parser for the
 * duration of this synchronous call only, so no other parse in the process ever sees it.
 */
export function parseHtml(html: string): Document | null {
  openElements.push = pushWithinDepth;
  try {
    return createDocument(html, true);
  } catch (err) {
    if (err instanceof TooDeep) return null;
    throw err;
  } finally {
    openElements.push = push;
  }
}
