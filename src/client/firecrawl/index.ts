/**
 * scrapegate's Firecrawl-dialect client, published as `scrapegate/firecrawl-client`: an
 * openapi-fetch client typed by the Firecrawl document (src/generated/firecrawl-client-types.ts),
 * the API key sent as a Bearer token. For code that wants scrapegate's own options typed; code
 * already on `@mendable/firecrawl-js` can keep it and point its `apiUrl` here.
 */
export { createFirecrawlClient, type FirecrawlClient, type FirecrawlClientOptions } from './firecrawl-client.js';
export { firecrawlErrorMessage, isFirecrawlError, type FirecrawlErrorBody, type FirecrawlIssue } from './firecrawl-error.js';
export type { components, operations, paths } from '../../generated/firecrawl-client-types.js';
