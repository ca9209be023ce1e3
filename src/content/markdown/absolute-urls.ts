// Links and images in the markdown are absolute: the markdown leaves the page, and a relative
// address means nothing without the page it came from.

import type { ElementNode } from './dom/nodes.js';

/** Schemes whose URLs are kept exactly as written: they are not addresses relative to the page. */
const KEPT_AS_WRITTEN = new Set(['mailto:', 'tel:', 'data:']);

/** A <base href> with these schemes is ignored, as browsers do. */
const REFUSED_BASE = new Set(['data:', 'javascript:']);

/**
 * The URL the page's relative links resolve against: the href of its first <base> that has one,
 * itself resolved against `pageUrl` (the page's final address), or `pageUrl` when there is none
 * or it is unusable.
 */
export function documentBaseUrl(baseHref: string | null, pageUrl: URL): URL {
  if (baseHref === null) return pageUrl;
  const resolved = parseUrl(baseHref, pageUrl);
  return resolved !== null && !REFUSED_BASE.has(resolved.protocol) ? resolved : pageUrl;
}

/**
 * Rewrites `attribute` of `element` as an absolute URL against `base`. A javascript: URL is
 * removed (its element keeps only its text); mailto:, tel: and data: URLs and values that are no
 * URL at all are left as written.
 */
export function makeAbsolute(element: ElementNode, attribute: 'href' | 'src', base: URL): void {
  const value = element.getAttribute(attribute);
  if (value === null) return;
  const url = parseUrl(value, base);
  if (url === null || KEPT_AS_WRITTEN.has(url.protocol)) return;
  if (url.protocol === 'javascript:') element.removeAttribute(attribute);
  else element.setAttribute(attribute, url.href);
}

function parseUrl(value: string, base: URL): URL | null {
  try {
    return new URL(value, base);
  } catch {
    return null;
  }
}
