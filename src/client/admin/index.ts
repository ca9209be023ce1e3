/**
 * The scrapegate admin client, published as `scrapegate/admin-client`: an openapi-fetch client
 * typed by the admin OpenAPI document (src/generated/admin-types.ts), the token filled in.
 */
export { createAdminClient, type AdminClient, type AdminClientOptions } from './admin-client.js';
export { errorMessage, isValidationError, type ErrorBody, type ValidationErrorBody, type ValidationIssue } from '../error-body.js';
export type { components, operations, paths } from '../../generated/admin-types.js';
