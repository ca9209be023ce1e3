/** A URL's user name and password, taken out of it for the browser. */
export interface UrlCredentials {
  /** The URL without them: what Chromium is given. */
  url: URL;
  /** `Basic …` of the decoded user name and password; undefined when the URL has none. */
  authorization: string | undefined;
}

/** Percent-decoded as Chromium would; a malformed escape is kept as written. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * Chromium given `http://user:pass@host/` keeps the credentials in its HTTP authentication cache
 * and sends them on to whatever asks next, another tenant's request included. The browser engine
 * never hands them to Chromium: the main request carries them as its own Authorization header.
 */
export function splitCredentials(url: URL): UrlCredentials {
  if (url.username === '' && url.password === '') return { url, authorization: undefined };
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  const pair = `${decoded(url.username)}:${decoded(url.password)}`;
  return { url: bare, authorization: `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` };
}
