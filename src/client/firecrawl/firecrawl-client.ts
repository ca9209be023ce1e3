import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../generated/firecrawl-client-types.js';
import { bearerMiddleware } from '../bearer-middleware.js';

export interface FirecrawlClientOptions {
  /** Where scrapegate listens, e.g. `http://localhost:8080` (no trailing path: the dialect is served at the root). */
  baseUrl: string;
  /** A scrapegate API key, sent as `Authorization: Bearer …` on every call, as Firecrawl's SDKs send theirs. */
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: (input: Request) => Promise<Response>;
}

/**
 * An openapi-fetch client typed by every path of the Firecrawl document. Its types are generated
 * with request fields that have a default left optional (`formats`, `onlyMainContent`, `timeout`…),
 * as the server fills them in; a path added to the document is here after `npm run types`.
 */
export type FirecrawlClient = Client<paths>;

/**
 * A typed client for scrapegate's Firecrawl dialect:
 * `firecrawl.POST('/v2/scrape', { body: { url, formats: ['markdown'] } })` answers
 * `{ data, error, response }` as openapi-fetch does, `error` being the dialect's
 * `{ success: false, error, code?, details? }`.
 */
export function createFirecrawlClient(options: FirecrawlClientOptions): FirecrawlClient {
  if (!options.apiKey) throw new TypeError('createFirecrawlClient: apiKey is required');
  const client = createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  client.use(bearerMiddleware(options.apiKey));
  return client;
}
