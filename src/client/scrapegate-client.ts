import createClient, { type Client } from 'openapi-fetch';
import { apiKeyMiddleware } from './api-key-middleware.js';
import type { ScrapegatePaths } from './client-paths.js';
import { rawAnswerMiddleware } from './raw-answer-middleware.js';
import { serializeBody } from './raw-body.js';

export interface ScrapegateClientOptions {
  /** Where scrapegate listens, e.g. `http://localhost:8080` (no trailing path). */
  baseUrl: string;
  /** Sent on every call in the `x-api-key` header (never in the URL). */
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: (input: Request) => Promise<Response>;
}

/** An openapi-fetch client typed by the OpenAPI document, the API key filled in. */
export type ScrapegateClient = Client<ScrapegatePaths>;

/**
 * A typed client for every operation of the document:
 * `client.GET('/v2/general', { params: { query: { url, browser: false } } })` answers
 * `{ data, error, response }` as openapi-fetch does, `error` being the document's error body.
 */
export function createScrapegateClient(options: ScrapegateClientOptions): ScrapegateClient {
  if (!options.apiKey) throw new TypeError('createScrapegateClient: apiKey is required');
  const client = createClient<ScrapegatePaths>({
    baseUrl: options.baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    bodySerializer: serializeBody,
  });
  client.use(apiKeyMiddleware(options.apiKey), rawAnswerMiddleware);
  return client;
}
