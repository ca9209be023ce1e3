import { isTag, type Document, type Element, type ParentNode } from 'domhandler';
import { getOuterHTML } from 'domutils';
import { MAX_DOM_DEPTH, TooDeepError } from '../dom-depth.js';
import { limitDepth } from '../extract/depth-limit.js';
import { ExtractRulesError } from '../extract/extract-rules-error.js';
import { parseMetered } from '../extract/metered-parse.js';
import { outerHtml } from '../extract/outer-html.js';
import { htmlToMarkdown } from '../markdown/html-to-markdown.js';
import { eachElement } from './each-element.js';
import { headMetadata, type HeadMetadata } from './head-metadata.js';
import { baseOf, pageLinks } from './page-links.js';
import { MAX_ATTRIBUTE_CHARS, pageAttributes, type AttributeSelector, type AttributeValues } from './page-attributes.js';
import { dropChrome, filterTags, type TagChoice } from './tag-filter.js';

export interface PageDocumentInput extends TagChoice {
  html: string;
  /** The page's final URL (after redirects). */
  pageUrl: string;
  onlyMainContent: boolean;
  wants: { markdown: boolean; html: boolean; links: boolean; images: boolean };
  /** Firecrawl's `attributes` format: the values to read (none: not asked for). */
  attributes?: AttributeSelector[];
}

export interface PageDocumentOutput {
  metadata: HeadMetadata;
  markdown?: string;
  html?: string;
  links?: string[];
  images?: string[];
  attributes?: AttributeValues[];
  /** Something asked for could not be done on this page, and was left out. */
  warning?: string;
}

/**
 * Nesting past which a page is not parsed as a tree (htmlparser2's time grows with the square of
 * it): such a page keeps its markdown (as text) and loses its html, links and metadata.
 */
const MAX_PARSE_DEPTH = MAX_DOM_DEPTH * 8;

function parse(html: string): Document | null {
  try {
    return parseMetered(html, (depth) => {
      if (depth > MAX_PARSE_DEPTH) throw new TooDeepError();
    });
  } catch (err) {
    if (err instanceof TooDeepError) return null;
    throw err;
  }
}

function bodyOf(document: Document): ParentNode {
  let body: Element | undefined;
  eachElement(document, (element) => {
    if (element.name === 'body') body = element;
    return body === undefined;
  });
  return body ?? document;
}

/** The children of `root` (or the elements given) as HTML, one node at a time (outer-html.ts). */
function serialize(parts: ParentNode | Element[]): string {
  const nodes = Array.isArray(parts) ? parts : parts.children;
  return nodes.map((node) => (isTag(node) ? outerHtml(node) : getOuterHTML(node, { decodeEntities: false }))).join('');
}

/** A link's href or an image's src made absolute against `base`; a javascript: URL removed. */
function absolutizeOne(element: Element, base: URL): void {
  const attribute = element.name === 'a' ? 'href' : element.name === 'img' ? 'src' : undefined;
  const value = attribute && element.attribs[attribute];
  if (!attribute || value === undefined || value.startsWith('data:') || value.startsWith('#')) return;
  try {
    const url = new URL(value, base);
    if (url.protocol === 'javascript:') delete element.attribs[attribute];
    else if (url.protocol === 'http:' || url.protocol === 'https:') element.attribs[attribute] = url.href;
  } catch {
    // Not a URL: left as written.
  }
}

function absolutize(root: ParentNode, base: URL): void {
  if (isTag(root)) absolutizeOne(root, base);
  eachElement(root, (element) => absolutizeOne(element, base));
}

/**
 * A fetched page made into the parts of a Firecrawl document, from one parse: its metadata, its
 * links and images, its markdown and its cleaned html (without scripts and styles, with
 * `includeTags`/`excludeTags` applied, and without chrome when only the main content is asked
 * for). Pure and synchronous: it runs in an HTML worker.
 */
export function pageDocument(input: PageDocumentInput): PageDocumentOutput {
  const pageUrl = new URL(input.pageUrl);
  const { wants } = input;
  const document = parse(input.html);
  if (document === null) {
    return {
      metadata: {},
      ...(wants.markdown ? { markdown: htmlToMarkdown({ html: input.html, baseUrl: input.pageUrl, onlyMainContent: input.onlyMainContent }) } : {}),
      ...(wants.html ? { html: '' } : {}),
      ...(wants.links ? { links: [] } : {}),
      ...(wants.images ? { images: [] } : {}),
      ...(input.attributes ? { attributes: input.attributes.map((a) => ({ ...a, values: [] })) } : {}),
      warning: 'the page nests its elements too deeply to be read as a tree: its markdown is its text',
    };
  }
  limitDepth(document);
  const out: PageDocumentOutput = { metadata: headMetadata(document, pageUrl) };
  const base = baseOf(document, pageUrl);
  // Read from the page as it came, before any tag filtering takes elements out of it.
  if (input.attributes) {
    try {
      const read = pageAttributes(document, input.attributes);
      out.attributes = read.attributes;
      if (read.truncated) out.warning = `the attributes' values exceed ${MAX_ATTRIBUTE_CHARS} characters in all: those past it are left out`;
    } catch (err) {
      if (!(err instanceof ExtractRulesError)) throw err;
      out.attributes = input.attributes.map((a) => ({ ...a, values: [] }));
      out.warning = 'the attributes selectors take too long on this page: they have no values';
    }
  }
  if (wants.links || wants.images) {
    const found = pageLinks(document, base, !input.removeBase64Images);
    if (wants.links) out.links = found.links;
    if (wants.images) out.images = found.images;
  }
  const filtered = input.includeTags.length > 0 || input.excludeTags.length > 0 || input.removeBase64Images;
  if (!wants.html && !(wants.markdown && filtered)) {
    if (wants.markdown) out.markdown = htmlToMarkdown({ html: input.html, baseUrl: input.pageUrl, onlyMainContent: input.onlyMainContent });
    return out;
  }
  let included: Element[] | undefined;
  try {
    included = filterTags(document, input);
  } catch (err) {
    if (!(err instanceof ExtractRulesError)) throw err;
    out.warning = 'includeTags and excludeTags take too long on this page: they were not applied';
  }
  const body = bodyOf(document);
  if (wants.markdown) {
    // The filtered page, its links resolved against the page's own base (its <base> is gone).
    const html = filtered ? serialize(included ?? body) : input.html;
    out.markdown = htmlToMarkdown({ html, baseUrl: filtered ? base.href : input.pageUrl, onlyMainContent: input.onlyMainContent && included === undefined });
  }
  if (wants.html) {
    const parts: ParentNode | Element[] = included ?? body;
    if (input.onlyMainContent && included === undefined) dropChrome(body);
    for (const part of Array.isArray(parts) ? parts : [parts]) absolutize(part, base);
    out.html = serialize(parts);
  }
  return out;
}
