/**
 * The scrapegate client, published as `scrapegate/client`: an openapi-fetch client typed by the
 * OpenAPI document (src/generated), plus readers for what that typing leaves loose — the `Svc-`
 * headers of v2 answers and the error bodies.
 */
export { createScrapegateClient, type ScrapegateClient, type ScrapegateClientOptions } from './scrapegate-client.js';
export type { RawBody, ScrapegatePaths, V1RequestBody } from './client-paths.js';
export { readSvcHeaders, type SvcHeaders } from './svc-headers.js';
export {
  errorMessage,
  isValidationError,
  type ErrorBody,
  type ScrapegateErrorBody,
  type ValidationErrorBody,
  type ValidationIssue,
} from './error-body.js';
export type { components, operations, paths } from '../generated/openapi-types.js';
