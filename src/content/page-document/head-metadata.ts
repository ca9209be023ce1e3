import type { Document, Element } from 'domhandler';
import { nodeText } from '../extract/node-text.js';
import { eachElement } from './each-element.js';

/** What a page says of itself in its <head> (and its <html lang>), as a Firecrawl document's metadata carries it. */
export type HeadMetadata = Record<string, string>;

/** Every other <meta> is kept under its own name, up to this many, each value cut at MAX_VALUE_CHARS. */
const MAX_ENTRIES = 100;
const MAX_VALUE_CHARS = 2_000;
/** Elements looked at, at most: a head is short; a page's whole body need not be walked for it. */
const MAX_ELEMENTS = 20_000;

/** The names Firecrawl gives the usual <meta> tags; the rest keep theirs. */
const NAMED: Readonly<Record<string, string>> = {
  description: 'description',
  keywords: 'keywords',
  robots: 'robots',
  'og:title': 'ogTitle',
  'og:description': 'ogDescription',
  'og:url': 'ogUrl',
  'og:image': 'ogImage',
  'og:site_name': 'ogSiteName',
  'og:locale': 'ogLocale',
  'og:type': 'ogType',
};

/** Names a page may not set: they are the service's own (a page cannot say its own status or price). */
const RESERVED = new Set(['sourceURL', 'url', 'statusCode', 'contentType', 'proxyUsed', 'creditsUsed', 'scrapeId', 'error', 'cacheState', 'title', 'language', 'favicon', '__proto__']);

function cut(value: string): string {
  const trimmed = value.replace(/\s+/g, ' ').trim();
  return trimmed.length > MAX_VALUE_CHARS ? trimmed.slice(0, MAX_VALUE_CHARS) : trimmed;
}

function text(element: Element): string {
  return nodeText(element).slice(0, MAX_VALUE_CHARS * 2);
}

function absolute(href: string, base: URL): string | undefined {
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'data:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The page's title, description, language, keywords, robots, Open Graph tags and favicon, and
 * its other <meta> names and properties as they are. The first of each wins, as in a browser.
 * The favicon is the first <link rel="icon"> (or "shortcut icon"), else /favicon.ico.
 */
export function headMetadata(document: Document, pageUrl: URL): HeadMetadata {
  const found: HeadMetadata = {};
  let entries = 0;
  const put = (name: string, value: string) => {
    if (Object.hasOwn(found, name) || entries >= MAX_ENTRIES) return;
    found[name] = cut(value);
    entries++;
  };
  let visited = 0;
  eachElement(document, (node) => {
    if (++visited > MAX_ELEMENTS) return false;
    const { name, attribs } = node;
    if (name === 'html' && attribs.lang && !found.language) found.language = cut(attribs.lang);
    else if (name === 'title' && found.title === undefined) found.title = cut(text(node));
    else if (name === 'meta') {
      const key = attribs.name ?? attribs.property ?? attribs['http-equiv'];
      if (key === undefined || attribs.content === undefined) return;
      const lower = key.toLowerCase();
      const named = NAMED[lower];
      if (named) put(named, attribs.content);
      else if (!RESERVED.has(key) && key.length <= 100) put(key, attribs.content);
    } else if (name === 'link' && found.favicon === undefined && /(^|\s)icon(\s|$)/i.test(attribs.rel ?? '') && attribs.href) {
      const href = absolute(attribs.href, pageUrl);
      if (href && href.length <= MAX_VALUE_CHARS) found.favicon = href;
    }
    return undefined;
  });
  if (found.favicon === undefined && (pageUrl.protocol === 'http:' || pageUrl.protocol === 'https:')) found.favicon = new URL('/favicon.ico', pageUrl).href;
  return found;
}
