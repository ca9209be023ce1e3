/**
 * How deep elements may nest, in every reading of a page: Chromium's parser stops nesting at
 * this depth (kMaximumHTMLParserDOMTreeDepth), so a browser never shows a page deeper. Deeper,
 * htmlparser2 turns quadratic (each start tag shifts its stack of open elements: 100,000 nested
 * <div>s take 3 s, 14 s when stray end tags search the stack) and turndown, which recurses per
 * level, overflows the stack near 1,500 levels.
 */
export const MAX_DOM_DEPTH = 512;

/** Thrown from a parser's callbacks to stop a parse that went deeper than MAX_DOM_DEPTH. */
export class TooDeepError extends Error {}
