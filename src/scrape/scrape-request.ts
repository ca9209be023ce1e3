import type { ProxyType } from '../config/catalog.js';
import type { CaptureSpec, Cookie, ForwardedMethod, ResourceType } from '../engines/fetcher.js';

/** One scrape, as every endpoint asks for it once its parameters are validated and decoded. */
export interface ScrapeRequest {
  /** The operation asked (its operationId), as the ledger records it. */
  operation: string;
  url: URL;
  method: ForwardedMethod;
  body: Buffer | undefined;
  headers: Record<string, string>;
  cookies: Cookie[];
  browser: boolean;
  returnPageSource: boolean;
  jsSnippet: string | undefined;
  waitForSelector: string | undefined;
  blockResources: ResourceType[];
  proxyType: ProxyType;
  proxyCountry: string | undefined;
  /** A sticky proxy session's number: the same exit for the same key, session, type and country. */
  sessionId: number | undefined;
  timeoutMs: number;
  collectExtras: boolean;
  wantsText: boolean;
  /**
   * The answer is built by HTML work on the page (its text, its Markdown, an extraction): the
   * request is budgeted (billing/browser-budget.ts), and a cost cap it hits counts as a failure.
   */
  htmlWork: boolean;
  wantsCookies: boolean;
  /** A screenshot or PDF of the rendered page (browser only). */
  capture: CaptureSpec | undefined;
  /** Where the caller is, as a key's IP restriction judges it (http/client-address.ts). */
  clientAddress: string;
}
