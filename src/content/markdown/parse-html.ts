// The page's HTML → the tree turndown converts, with htmlparser2, the parser extraction uses too.

import { Parser } from 'htmlparser2';
import { MAX_DOM_DEPTH, TooDeepError } from '../dom-depth.js';
import { COLLAPSIBLE } from './block-elements.js';
import { ElementNode, ROOT_NAME, TextNode } from './dom/nodes.js';
import { tableParent } from './table-parts.js';


export interface ParsedPage {
  /** Everything the page holds, <head> included. */
  root: ElementNode;
  /** The page's <body>; `root` for a page without one (a fragment). */
  body: ElementNode;
  /** The href of the page's first <base> that has one: only that one counts. */
  baseHref: string | null;
}


/** A newline right after these start tags is not content (the HTML parsing algorithm drops it). */
const LEADING_NEWLINE_DROPPED = new Set(['pre', 'listing', 'textarea']);

/** Table structure, in which white space never shows (a browser keeps it; it writes nothing). */
const TABLE_STRUCTURE = new Set(['table', 'thead', 'tbody', 'tfoot', 'tr']);

/**
 * Parses `html`, or returns null when elements nest deeper than MAX_DOM_DEPTH (the parse stops
 * there, so hostile nesting costs no more than a page of that depth). Comments, doctypes and
 * processing instructions are left out: they write nothing.
 *
 * htmlparser2 closes some of the elements the HTML parsing algorithm closes implicitly (a <p> by
 * a block, an <li> by the next item, a cell by the next row) and adds no element a page leaves
 * out. Some steps of the algorithm that change the text or the tables are taken here:
 * - line breaks are normalized to "\n", and the newline right after <pre> is dropped;
 * - what comes after </body> goes into the body (pages end with stray text after it);
 * - table sections, rows and cells go into the table, section or row that is open, whatever
 *   cell was left unclosed, and outside any table they are no elements at all (table-parts.ts).
 * Formatting misnested across blocks (`<b><p>x</b> y</p>`) stays closed where it was closed,
 * where a browser would reopen the <b> inside the <p>. A rendered page (the browser engine's) is
 * well nested already.
 */
export function parseHtml(html: string): ParsedPage | null {
  const root = new ElementNode(ROOT_NAME);
  // Where the content of each open start tag goes: its element, or the element it stood in for a
  // start tag that makes none (`made` tells which). One entry per entry of htmlparser2's stack.
  const open: ElementNode[] = [root];
  const made: boolean[] = [true];
  // The open tables, sections and rows, innermost last: where table parts are placed, found
  // without scanning every open element for each cell.
  const openTableParts: ElementNode[] = [];
  let body: ElementNode | null = null;
  let bodyClosed = false;
  let baseHref: string | null = null;
  let openPres = 0;
  let justOpened: ElementNode | null = null;

  const current = (): ElementNode => {
    const top = open[open.length - 1];
    return body !== null && bodyClosed && (top === root || top === body.parentNode) ? body : top;
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (open.length > MAX_DOM_DEPTH) throw new TooDeepError();
        const into = tableParent(name, openTableParts) ?? current();
        if (into === 'ignored') {
          open.push(current());
          made.push(false);
          justOpened = null;
          return;
        }
        const element = into.appendChild(new ElementNode(name, attributes));
        open.push(element);
        made.push(true);
        if (TABLE_STRUCTURE.has(name)) openTableParts.push(element);
        justOpened = element;
        if (name === 'pre') openPres++;
        if (name === 'body' && body === null) body = element;
        else if (name === 'base' && baseHref === null && Object.hasOwn(attributes, 'href')) baseHref = attributes.href;
      },
      onclosetag() {
        const element = open.pop();
        justOpened = null;
        if (made.pop() !== true) return;
        if (element !== undefined && element === openTableParts[openTableParts.length - 1]) openTableParts.pop();
        if (element?.localName === 'pre') openPres--;
        if (element !== undefined && element === body) bodyClosed = true;
      },
      ontext(data) {
        const into = current();
        let text = data;
        if (justOpened === into && LEADING_NEWLINE_DROPPED.has(into.localName) && text.startsWith('\n')) text = text.slice(1);
        justOpened = null;
        const last = into.lastChild;
        if (last instanceof TextNode) {
          last.data += text;
          return;
        }
        if (openPres === 0 && TABLE_STRUCTURE.has(into.localName) && COLLAPSIBLE.test(text)) return;
        if (text !== '') into.appendChild(new TextNode(text));
      },
    },
    { decodeEntities: true },
  );
  try {
    parser.end(html.replace(/\r\n?/g, '\n'));
  } catch (err) {
    if (err instanceof TooDeepError) return null;
    throw err;
  }
  return { root, body: body ?? root, baseHref };
}
