import type { Cookie } from '../../engines/scrape-request.js';

/** Parses `name=value; name2=value2` (the `cookies` parameter and Cookie headers). */
export function parseCookieList(text: string): Cookie[] {
  const out: Cookie[] = [];
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name) continue;
    out.push({ name, value: part.slice(eq + 1).trim() });
  }
  return out;
}
