import type { Document } from 'domhandler';
import { eachElement } from './each-element.js';

/** Links (and images) a document lists at most: a page of a million anchors answers the first ones. */
export const MAX_LINKS = 10_000;
const MAX_URL_CHARS = 8_192;

/** The URL the page's relative addresses resolve against: its first <base href>, else where it ended up. */
export function baseOf(document: Document, pageUrl: URL): URL {
  let href: string | undefined;
  eachElement(document, (node) => {
    if (node.name === 'base' && node.attribs.href !== undefined) href = node.attribs.href;
    return href === undefined && node.name !== 'body';
  });
  if (href === undefined) return pageUrl;
  try {
    const base = new URL(href, pageUrl);
    return base.protocol === 'http:' || base.protocol === 'https:' ? base : pageUrl;
  } catch {
    return pageUrl;
  }
}

function resolve(value: string, base: URL, keepData: boolean): string | undefined {
  if (keepData && value.startsWith('data:')) return value.length <= MAX_URL_CHARS * 128 ? value : undefined;
  try {
    const url = new URL(value, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href.length <= MAX_URL_CHARS ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The page's links (<a href>, <area href>) and images (<img src>), absolute (fragments dropped),
 * http(s) only, unique, in document order, MAX_LINKS of each at most. With `dataImages`, images
 * inlined as `data:` URIs are listed too.
 */
export function pageLinks(document: Document, base: URL, dataImages: boolean): { links: string[]; images: string[] } {
  const links = new Set<string>();
  const images = new Set<string>();
  eachElement(document, (node) => {
    if ((node.name === 'a' || node.name === 'area') && node.attribs.href !== undefined && links.size < MAX_LINKS) {
      const href = resolve(node.attribs.href.trim(), base, false);
      if (href) links.add(href);
    } else if (node.name === 'img' && node.attribs.src !== undefined && images.size < MAX_LINKS) {
      const src = resolve(node.attribs.src.trim(), base, dataImages);
      if (src) images.add(src);
    }
    return links.size < MAX_LINKS || images.size < MAX_LINKS;
  });
  return { links: [...links], images: [...images] };
}
