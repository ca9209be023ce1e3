// Everything done to the parsed page before turndown sees it, in one walk over the elements:
// what is never content goes, chrome goes when only the main content is asked for, links and
// images become absolute, code blocks take the shape turndown's fenced rule reads, and what
// turndown would handle in more than linear time is reshaped (deep indentation, long ordered
// lists, tables' rows and width, empty elements) or measured (the work, against MAX_WORK), and
// white space that writes nothing goes.

import { documentBaseUrl, makeAbsolute } from './absolute-urls.js';
import { BLOCKS, dropSpaceBefore } from './block-elements.js';
import type { ElementNode } from './dom/nodes.js';
import { isRemovableBlank } from './blank-elements.js';
import { normalizeCodeBlock } from './code-blocks.js';
import { walkElements } from './dom-walk.js';
import { mainContentRoot, pageChromeFilter } from './main-content.js';
import { isNeverContent } from './never-content.js';
import { splitLongOrderedList } from './ordered-lists.js';
import { INDENTING, MAX_INDENTATION, flattenToText, indentation } from './indentation.js';
import type { ParsedPage } from './parse-html.js';
import { prepareTable } from './tables.js';

/**
 * What turndown costs per element, in the unit of MAX_WORK: about 50 times what one level of
 * nesting adds (it reads the text of every element it converts, to find blank ones, which visits
 * each element once per ancestor).
 */
export const ELEMENT_WORK = 50;

/**
 * The most conversion work a page may need: the sum, over its elements, of ELEMENT_WORK and their
 * depth below the converted root. At the limit, turndown takes about 10 s on the 2-core machine
 * the tests run on (with other tests running). The bench's realistic 10 MB page needs 12 million.
 * Past it (a million elements, or thousands of nestings hundreds deep: hostile pages), the page
 * is not converted as a tree: plain text costs a second.
 */
export const MAX_WORK = 25_000_000;

/**
 * Prepares `page` in place and returns the element whose children become the markdown, or null
 * when the page needs more work than MAX_WORK (the walk stops there).
 */
export function prepareDocument(page: ParsedPage, pageUrl: URL, onlyMainContent: boolean): ElementNode | null {
  const base = documentBaseUrl(page.baseHref, pageUrl);
  const root = onlyMainContent ? mainContentRoot(page) : page.body;
  const isChrome = onlyMainContent ? pageChromeFilter(root) : () => false;
  const codeBlocks: ElementNode[] = [];
  // Written as a block of their text: items and quotes too deep to indent, tables too wide.
  const asText: ElementNode[] = [];
  let work = 0;
  // The depth of the <pre> the walk is inside, 0 outside any: white space in a code block is code.
  let preDepth = 0;

  walkElements(root, (element, depth) => {
    // Counted first: deciding on an element climbs its ancestors too.
    work += ELEMENT_WORK + depth;
    if (work > MAX_WORK) return 'stop';
    if (depth <= preDepth) preDepth = 0;
    const tag = element.localName;
    if (isNeverContent(element) || isChrome(element) || isRemovableBlank(element)) return 'remove';
    // A block that stays (one written as its text stays a block of its text).
    if (preDepth === 0 && BLOCKS.has(tag)) dropSpaceBefore(element);
    const tooDeep = INDENTING.has(tag) && indentation(element, root) >= MAX_INDENTATION;
    if (tooDeep || (tag === 'table' && !prepareTable(element))) {
      asText.push(element);
      return 'skip';
    }
    if (tag === 'a') makeAbsolute(element, 'href', base);
    else if (tag === 'img') makeAbsolute(element, 'src', base);
    else if (tag === 'ol') splitLongOrderedList(element);
    else if (tag === 'pre') {
      codeBlocks.push(element);
      if (preDepth === 0) preDepth = depth;
    }
    return 'descend';
  });
  if (work > MAX_WORK) return null;
  // After the walk, so that what it removed from inside a block (a "Copy" button) is gone. A
  // block inside a block went with the outer one's markup.
  for (const pre of codeBlocks) if (pre.isConnected) normalizeCodeBlock(pre);
  for (const element of asText) flattenToText(element);
  return root;
}
