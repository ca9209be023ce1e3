import type { ProxyType } from '../../config/catalog.js';
import type { CaptureSpec, ScrapeRequest } from '../../engines/scrape-request.js';
import type { FirecrawlOptions } from './firecrawl-options.js';

/** What `mobile` renders as: a phone's window and its browser's User-Agent. */
export const MOBILE_WINDOW = { width: 390, height: 844 };
export const MOBILE_USER_AGENT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const DESKTOP_WINDOW = { width: 1920, height: 1080 };

/**
 * `waitFor` as a script the browser awaits once the page has loaded (the engine awaits a snippet's
 * promise), before the caller's own snippet.
 */
function snippetOf(options: FirecrawlOptions): string | undefined {
  if (options.waitForMs === 0) return options.jsSnippet ?? undefined;
  const wait = `new Promise(function (done) { setTimeout(done, ${options.waitForMs}); })`;
  if (options.jsSnippet === null) return `return ${wait};`;
  return `var self = this; return ${wait}.then(function () { return (function () {\n${options.jsSnippet}\n}).call(self); });`;
}

function captureOf(options: FirecrawlOptions): CaptureSpec | undefined {
  const shot = options.formats.screenshot;
  if (!shot) return undefined;
  return {
    kind: 'screenshot',
    format: shot.quality === null ? 'png' : 'jpeg',
    quality: shot.quality ?? undefined,
    fullPage: shot.fullPage,
    selector: undefined,
    width: shot.width,
    height: shot.height,
  };
}

/** The window a screenshot is taken in when the format names none. */
export function defaultWindow(mobile: boolean): { width: number; height: number } {
  return mobile ? MOBILE_WINDOW : DESKTOP_WINDOW;
}

/** One item's scrape, as the scrape service takes it, through a proxy of `proxyType`. */
export function itemRequest(url: string, options: FirecrawlOptions, proxyType: ProxyType): ScrapeRequest {
  const headers = { ...options.headers };
  if (options.mobile && !Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) headers['User-Agent'] = MOBILE_USER_AGENT;
  return {
    url: new URL(url),
    method: 'GET',
    headers,
    body: undefined,
    cookies: options.cookies,
    browser: options.browser,
    returnPageSource: false,
    jsSnippet: snippetOf(options),
    waitForSelector: options.waitForSelector ?? undefined,
    blockResources: options.blockResources,
    proxy: { type: proxyType, country: options.country ?? undefined, sessionId: options.sessionId ?? undefined },
    timeoutMs: options.timeoutMs,
    capture: captureOf(options),
    ...(options.actions.length > 0 ? { actions: options.actions } : {}),
  };
}
