import type { ProxyType } from '../config/catalog.js';
import type { Cookie, ForwardedMethod, ResourceType } from '../fetchers/fetcher.js';

/** One scrape, as every endpoint asks for it once its parameters are validated and decoded. */
export interface ScrapeRequest {
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
  timeoutMs: number;
  collectExtras: boolean;
  wantsText: boolean;
  wantsCookies: boolean;
  /** Where the parameters came from, for the `loc` of a 422. */
  paramSource: 'query' | 'body';
}
