// Pages name a code block's language in several ways, and wrap its text in several shapes.
// Each <pre> is brought to the one shape turndown's fenced-code rule reads: <pre> with a single
// <code class="language-x"> child. turndown then writes the fence (longer than any run of
// backticks in the code) and its language; nothing here writes markdown.

import { ElementNode, TextNode, nextInside, type DomNode } from './dom/nodes.js';

/** class="language-js" (Prism, highlight.js, the HTML spec's advice) or class="lang-js" (Prettify). */
const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang)-(\S+)/;

/** GitHub (highlight-source-js, highlight-text-html-basic) and Sphinx (highlight-python) wrappers. */
const HIGHLIGHT_CLASS = /(?:^|\s)highlight-(?:source-|text-)?([^\s-]+)/;

/** Sphinx marks blocks without a language this way; they are not a language. */
const NOT_A_LANGUAGE = new Set(['default', 'none', 'plain', 'plaintext', 'nohighlight']);

/** What can follow a fence: no backticks or spaces, which would end or break the info string. */
const USABLE_LANGUAGE = /^[\w+#.-]{1,40}$/;

/** How many ancestors of the <pre> are searched for a highlight-* wrapper. */
const WRAPPER_LEVELS = 3;

/**
 * Rebuilds `pre` for turndown: one <code> child holding the block's text as a single text node,
 * named by its language. turndown writes a code block from its text alone, so the highlighting
 * markup (a span per token, even a <pre> nested in the <pre>) would only be walked for nothing.
 */
export function normalizeCodeBlock(pre: ElementNode): void {
  const language = codeLanguage(pre, pre.children.find((child) => child.localName === 'code') ?? null);
  const code = new ElementNode('code');
  if (language !== null) code.setAttribute('class', `language-${language}`);
  code.textContent = blockText(pre);
  pre.textContent = '';
  pre.appendChild(code);
}

/** The language the page names for the block in `pre`, or null. */
function codeLanguage(pre: ElementNode, code: ElementNode | null): string | null {
  const candidates = [
    LANGUAGE_CLASS.exec(code?.getAttribute('class') ?? '')?.[1],
    LANGUAGE_CLASS.exec(pre.getAttribute('class') ?? '')?.[1],
    code?.getAttribute('data-lang'),
    pre.getAttribute('data-lang'),
    code?.getAttribute('data-language'),
    pre.getAttribute('data-language'),
    wrapperLanguage(pre),
  ];
  for (const candidate of candidates) {
    const language = candidate?.trim().toLowerCase();
    if (language && USABLE_LANGUAGE.test(language) && !NOT_A_LANGUAGE.has(language)) return language;
  }
  return null;
}

function wrapperLanguage(pre: ElementNode): string | undefined {
  let at: ElementNode | null = pre;
  for (let level = 0; level < WRAPPER_LEVELS && at !== null; level++, at = at.parentElement) {
    const language = HIGHLIGHT_CLASS.exec(at.getAttribute('class') ?? '')?.[1];
    if (language !== undefined) return language;
  }
  return undefined;
}

/** The text of `pre`, with its <br> line breaks (some pages break code lines so) as newlines. */
function blockText(pre: ElementNode): string {
  const parts: string[] = [];
  let node: DomNode | null = pre.firstChild;
  while (node !== null) {
    if (node instanceof TextNode) parts.push(node.data);
    else if (node.nodeName === 'BR') parts.push('\n');
    node = nextInside(node, pre);
  }
  return parts.join('');
}
