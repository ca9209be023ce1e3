import type { ProxyType } from '../config/catalog.js';
import { UnprocessableEntityError } from '../errors/api-error.js';
import type { Cookie, ForwardedMethod, ResourceType } from '../fetchers/fetcher.js';
import { parseCookieList } from './cookie-list.js';
import { forwardedHeaders } from './forwarded-headers.js';
import { checkCookie } from './header-values.js';
import type { ScrapeRequest } from './scrape-request.js';

/** Parameters as they stand after validation: strings from a query, typed values from JSON. */
export type ValidatedParams = Record<string, unknown>;

export interface RequestContext {
  method: ForwardedMethod;
  body: Buffer | undefined;
  rawHeaders: string[];
  collectExtras: boolean;
  /** Whether the answer lists the page's cookies. */
  wantsCookies: boolean;
  /** v1 takes no forwarded headers; v2 forwards `svc-` headers. */
  forwardHeaders: boolean;
  /** Where the parameters came from, for the `loc` of a 422. */
  source: 'query' | 'body';
}

const DEFAULT_TIMEOUT_SECONDS = 60;

function bool(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  return value === true || value === 'true';
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Turns validated parameters into the one request shape the scrape service knows. */
export function toScrapeRequest(p: ValidatedParams, ctx: RequestContext): ScrapeRequest {
  const forwarded = ctx.forwardHeaders ? forwardedHeaders(ctx.rawHeaders) : { headers: {}, cookies: [] };
  const snippet = str(p.js_snippet);
  const blocks = p.block_resource === undefined ? [] : ([] as unknown[]).concat(p.block_resource);
  return {
    url: targetUrl(p.url, ctx.source),
    method: ctx.method,
    body: ctx.body,
    headers: forwarded.headers,
    cookies: [...cookieParam(p.cookies, ctx.source), ...forwarded.cookies],
    browser: bool(p.browser, true),
    returnPageSource: bool(p.return_page_source, false),
    jsSnippet: snippet === undefined ? undefined : Buffer.from(snippet, 'base64').toString('utf8'),
    waitForSelector: str(p.wait_for_selector),
    blockResources: [...new Set(blocks as ResourceType[])],
    proxyType: (str(p.proxy_type) ?? 'datacenter') as ProxyType,
    proxyCountry: str(p.proxy_country)?.toUpperCase(),
    timeoutMs: (p.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(p.timeout)) * 1000,
    collectExtras: ctx.collectExtras,
    wantsText: ctx.collectExtras || returnTextWanted(p),
    wantsCookies: ctx.wantsCookies,
    paramSource: ctx.source,
  };
}

function cookieParam(value: unknown, source: 'query' | 'body'): Cookie[] {
  const cookies = parseCookieList(str(value) ?? '');
  for (const c of cookies) checkCookie(c.name, c.value, [source, 'cookies']);
  return cookies;
}

export function returnTextWanted(p: ValidatedParams): boolean {
  return bool(p.return_text, false);
}

function targetUrl(value: unknown, source: 'query' | 'body'): URL {
  try {
    return new URL(String(value));
  } catch {
    throw new UnprocessableEntityError([{ loc: [source, 'url'], msg: 'invalid or missing URL scheme: only absolute http and https URLs are accepted', type: 'value_error.url' }]);
  }
}
