import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import type { Cookie, ForwardedMethod } from '../../engines/scrape-request.js';
import type { components } from '../../generated/openapi-types.js';
import { actionsParam } from './actions-param.js';
import { parseCookieList } from './cookie-list.js';
import { forwardedHeaders } from './forwarded-headers.js';
import { checkCookie } from './header-values.js';
import type { ScrapeRequest } from '../../engines/scrape-request.js';

type Param = components['parameters'];

/**
 * What every scraping operation takes, typed from the document and as its validation hands it
 * over (defaults filled in): v2's own parameters are optional here, as v1 has none of them.
 */
export interface ScrapeParams {
  url: Param['Url'];
  browser: Param['Browser'];
  cookies?: Param['Cookies'];
  js_snippet?: Param['JsSnippet'];
  proxy_type: Param['ProxyType'];
  proxy_country?: Param['ProxyCountry'];
  session_id?: Param['SessionId'];
  wait_for_selector?: Param['WaitForSelector'];
  return_page_source?: Param['ReturnPageSource'];
  block_resource?: Param['BlockResource'];
  timeout?: Param['Timeout'];
  actions?: Param['Actions'];
}

/** How an operation's request carries what its parameters do not: the method and body forwarded, and its headers. */
export interface RequestContext {
  method: ForwardedMethod;
  body: Buffer | undefined;
  /** The request's headers, whose `svc-` ones are forwarded (v2); undefined: none are (v1). */
  forwardFrom: string[] | undefined;
  /** The deadline when the operation has no `timeout` parameter (v1). */
  timeoutSeconds: number;
}

/** Turns validated parameters into the one request shape every scrape is (engines/scrape-request.ts). */
export function toScrapeRequest(p: ScrapeParams, ctx: RequestContext): ScrapeRequest {
  const forwarded = ctx.forwardFrom ? forwardedHeaders(ctx.forwardFrom) : { headers: {}, cookies: [] };
  const timeoutMs = (p.timeout ?? ctx.timeoutSeconds) * 1000;
  const actions = actionsParam(p.actions, timeoutMs);
  if (actions && !p.browser) throw new InvalidValueError('actions', 'actions act on the rendered page: they need browser=true', 'value_error.actions');
  // Refused here, before any reservation or browser: the two ask for different pages.
  if (actions && actions.length > 0 && p.return_page_source) {
    throw new InvalidValueError('return_page_source', 'return_page_source answers the page as the server sent it, and actions act on the rendered page: send one of them', 'value_error.actions');
  }
  return {
    url: targetUrl(p.url),
    method: ctx.method,
    body: ctx.body,
    headers: forwarded.headers,
    cookies: [...cookieParam(p.cookies), ...forwarded.cookies],
    browser: p.browser,
    returnPageSource: p.return_page_source ?? false,
    jsSnippet: p.js_snippet ? Buffer.from(p.js_snippet, 'base64').toString('utf8') : undefined,
    waitForSelector: p.wait_for_selector || undefined,
    blockResources: [...new Set(p.block_resource ?? [])],
    proxy: { type: p.proxy_type, country: p.proxy_country?.toUpperCase(), sessionId: p.session_id },
    timeoutMs,
    capture: undefined,
    ...(actions && actions.length > 0 ? { actions } : {}),
  };
}

function cookieParam(value: string | undefined): Cookie[] {
  const cookies = parseCookieList(value ?? '');
  for (const c of cookies) checkCookie(c.name, c.value, 'cookies');
  return cookies;
}

/** DNS's limit on a name (RFC 1035): a longer host names nothing, and is refused before any reservation. */
const MAX_HOST_CHARS = 253;

function targetUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidValueError('url', 'invalid or missing URL scheme: only absolute http and https URLs are accepted', 'value_error.url');
  }
  if (url.hostname.length > MAX_HOST_CHARS) {
    throw new InvalidValueError('url', `ensure the host has at most ${MAX_HOST_CHARS} characters`, 'value_error.url.host_too_long');
  }
  return url;
}
