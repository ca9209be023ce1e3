// HTML → GitHub-flavoured markdown, pure and synchronous (it runs in a worker thread: a string
// in, a string out). The page is parsed once, by htmlparser2, into the plain tree of dom/; the
// tree is cleaned and its URLs made absolute in place, then handed to turndown as a node.

import type { ElementNode } from './dom/nodes.js';
import { parseHtml } from './parse-html.js';
import { htmlToPlainText } from '../text/plain-text.js';
import { prepareDocument } from './prepare-document.js';
import { tidyMarkdown } from './tidy-markdown.js';
import { createTurndownService } from './turndown-service.js';

export interface HtmlToMarkdownInput {
  /** The page's HTML, as fetched or rendered. */
  html: string;
  /** The page's final URL (after redirects): relative links and images resolve against it. */
  baseUrl: string;
  /** Convert only the main content: see main-content.ts for what is kept and what dropped. */
  onlyMainContent: boolean;
}

// One service for every call: its options and rules never change after this line, and a
// conversion keeps no state in it.
const turndown = createTurndownService();

/**
 * The markdown of the page's <body> (or of its main content), trimmed. A page that cannot be
 * converted as a tree (nesting deeper than MAX_DOM_DEPTH, more work than MAX_WORK,
 * or turndown out of stack) comes back as the plain text of its whole body instead, whatever
 * onlyMainContent says: without a tree there is no main element to choose.
 *
 * @throws TypeError when `baseUrl` is not an absolute URL: the caller always has the final URL.
 */
export function htmlToMarkdown(input: HtmlToMarkdownInput): string {
  const pageUrl = new URL(input.baseUrl);
  const page = parseHtml(input.html);
  if (page === null) return htmlToPlainText(input.html);
  const root = prepareDocument(page, pageUrl, input.onlyMainContent);
  if (root === null) return htmlToPlainText(input.html);
  let markdown: string;
  try {
    markdown = turndown.turndown(disposable(root));
  } catch (err) {
    // turndown recurses per level of nesting; a thread with a smaller stack than the main one
    // can run out within MAX_DOM_DEPTH. The text is still worth returning.
    if (err instanceof RangeError) return htmlToPlainText(input.html);
    throw err;
  }
  return tidyMarkdown(markdown);
}

/**
 * `root` made to clone as itself, in the type turndown's declarations name (turndown reads only
 * the DOM members dom/ provides). turndown deep-copies the node it is given before working on it,
 * to spare the caller's DOM; this tree is never used again, so the copy would be work for nothing.
 */
function disposable(root: ElementNode): HTMLElement {
  Object.defineProperty(root, 'cloneNode', { value: () => root });
  return root as unknown as HTMLElement;
}
