import type { FetchedPage } from '../../engines/fetcher.js';

/**
 * The charset a body declares, as a browser finds it: a byte-order mark, the Content-Type's
 * charset, or a `<meta>` in the first 1024 bytes.
 */
function declaredCharset(page: FetchedPage): string | undefined {
  const b = page.body;
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(bodyContentType(page) ?? '')?.[1];
  if (fromHeader) return fromHeader;
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(b.toString('latin1', 0, 1024))?.[1];
}

/** The page's body as text, in the charset it declares (UTF-8 when none, or one this runtime does not know). */
export function pageHtml(page: FetchedPage): string {
  const charset = declaredCharset(page);
  if (charset) {
    try {
      return new TextDecoder(charset).decode(page.body);
    } catch {
      // an unknown label: fall through to UTF-8
    }
  }
  return page.body.toString('utf8');
}

/** The type of the body as answered: the engine's when it changed the body, else the target's. */
export function bodyContentType(page: FetchedPage): string | undefined {
  return page.contentType ?? header(page, 'content-type');
}

export function header(page: FetchedPage, name: string): string | undefined {
  const lower = name.toLowerCase();
  return page.headers.find(([n]) => n.toLowerCase() === lower)?.[1];
}

export function cookieString(page: FetchedPage): string {
  return page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
}
