// The page's HTML → the tree turndown converts, with htmlparser2, the parser extraction uses too.

import { Parser } from 'htmlparser2';
import { BLOCKS } from './block-elements.js';
import { ElementNode, ROOT_NAME, TextNode } from './dom/nodes.js';

/**
 * How deep elements may nest for a page to be converted as a tree; Chromium's parser stops
 * nesting at the same depth. Deeper, htmlparser2 turns quadratic (each start tag shifts its stack
 * of open elements: 100,000 nested <div>s take 3 s, 14 s when stray end tags search the stack)
 * and turndown, which recurses per level, overflows the stack near 1,500 levels.
 */
export const MAX_DEPTH = 512;

export interface ParsedPage {
  /** Everything the page holds, <head> included. */
  root: ElementNode;
  /** The page's <body>; `root` for a page without one (a fragment). */
  body: ElementNode;
  /** The href of the page's first <base> that has one: only that one counts. */
  baseHref: string | null;
}

/** Thrown from the parser's callbacks to stop a parse that went deeper than MAX_DEPTH. */
class TooDeep extends Error {}

/** A newline right after these start tags is not content (the HTML parsing algorithm drops it). */
const LEADING_NEWLINE_DROPPED = new Set(['pre', 'listing', 'textarea']);

/**
 * Elements whose children are blocks (or, in a table, are laid out as cells): white space
 * between those children never shows.
 */
const BETWEEN_BLOCKS_ONLY = new Set(['table', 'thead', 'tbody', 'tfoot', 'tr', 'ul', 'ol', 'dl']);

/** White space as turndown collapses it (not \f, nor a no-break space: those it keeps). */
const COLLAPSIBLE = /^[ \t\n\r]*$/;

/**
 * Parses `html`, or returns null when elements nest deeper than MAX_DEPTH (the parse stops
 * there, so hostile nesting costs no more than a page of that depth). Comments, doctypes and
 * processing instructions are left out: they write nothing.
 *
 * Two steps of the HTML parsing algorithm that htmlparser2 leaves out are taken here, as they
 * change the text: line breaks are normalized to "\n", and what comes after </body> goes into
 * the body, as in a browser (pages end with stray text after it). htmlparser2 closes elements
 * the way the HTML algorithm implies them (a <p> by the next block, an <li> by the next item) but
 * adds no <tbody> and moves nothing out of a <table>; turndown's table rules read both shapes.
 * Formatting misnested across blocks (`<b><p>x</b> y</p>`) stays closed where it was closed,
 * where a browser would reopen the <b> inside the <p>. A rendered page (the browser engine's) is
 * well nested already.
 */
export function parseHtml(html: string): ParsedPage | null {
  const root = new ElementNode(ROOT_NAME);
  const open: ElementNode[] = [root];
  let body: ElementNode | null = null;
  let bodyClosed = false;
  let baseHref: string | null = null;
  let openPres = 0;

  const parent = (): ElementNode => {
    const top = open[open.length - 1];
    return body !== null && bodyClosed && (top === root || top === body.parentNode) ? body : top;
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (open.length > MAX_DEPTH) throw new TooDeep();
        const element = new ElementNode(name, attributes);
        const into = parent();
        // White space right before a block writes nothing (turndown empties it when it reaches
        // the block), outside a <pre>. Not keeping it, nor the white space between blocks
        // only, spares turndown a third of the text nodes of a typical page.
        if (openPres === 0 && BLOCKS.has(name) && into.lastChild instanceof TextNode && COLLAPSIBLE.test(into.lastChild.data)) {
          into.lastChild.remove();
        }
        into.appendChild(element);
        open.push(element);
        if (name === 'pre') openPres++;
        if (name === 'body' && body === null) body = element;
        else if (name === 'base' && baseHref === null && Object.hasOwn(attributes, 'href')) baseHref = attributes.href;
      },
      onclosetag() {
        const element = open.pop();
        if (element?.localName === 'pre') openPres--;
        if (element !== undefined && element === body) bodyClosed = true;
      },
      ontext(data) {
        const into = parent();
        const last = into.lastChild;
        if (last instanceof TextNode) {
          last.data += data;
          return;
        }
        if (BETWEEN_BLOCKS_ONLY.has(into.localName) && COLLAPSIBLE.test(data)) return;
        const text = last === null && LEADING_NEWLINE_DROPPED.has(into.localName) && data.startsWith('\n') ? data.slice(1) : data;
        if (text !== '') into.appendChild(new TextNode(text));
      },
    },
    { decodeEntities: true },
  );
  try {
    parser.end(html.replace(/\r\n?/g, '\n'));
  } catch (err) {
    if (err instanceof TooDeep) return null;
    throw err;
  }
  return { root, body: body ?? root, baseHref };
}
