// Links and images in the markdown are absolute: the markdown leaves the page, and a relative
// address means nothing without the page it came from.

/** Schemes whose URLs are kept exactly as written: they are not addresses relative to the page. */
const KEPT_AS_WRITTEN = new Set(['mailto:', 'tel:', 'data:']);

/** A <base href> with these schemes is ignored, as browsers do. */
const REFUSED_BASE = new Set(['data:', 'javascript:']);

/**
 * The URL the page's relative links resolve against: its first <base href>, itself resolved
 * against `pageUrl` (the page's final address), or `pageUrl` when there is none or it is unusable.
 */
export function documentBaseUrl(document: Document, pageUrl: URL): URL {
  const bases = document.getElementsByTagName('base');
  // item(i) walks the document only as far as the i-th <base>; the first usually ends the loop.
  // (domino answers undefined, not null, past the end.)
  for (let i = 0; ; i++) {
    const base = bases.item(i) ?? null;
    if (base === null) break;
    const href = base.getAttribute('href');
    if (href === null) continue;
    // Only the first <base> that has an href counts, valid or not.
    const resolved = parseUrl(href, pageUrl);
    return resolved !== null && !REFUSED_BASE.has(resolved.protocol) ? resolved : pageUrl;
  }
  return pageUrl;
}

/**
 * Rewrites `attribute` of `element` as an absolute URL against `base`. A javascript: URL is
 * removed (its element keeps only its text); mailto:, tel: and data: URLs and values that are no
 * URL at all are left as written.
 */
export function makeAbsolute(element: Element, attribute: 'href' | 'src', base: URL): void {
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
