import type { components } from '../generated/openapi-types.js';

/** Every error but 422: `{ detail: "…" }`. */
export type ErrorBody = components['schemas']['Error'];
/** HTTP 422: `{ detail: [{ loc, msg, type }, …] }`, one issue per invalid parameter. */
export type ValidationErrorBody = components['schemas']['ValidationError'];
export type ValidationIssue = components['schemas']['ValidationIssue'];
/** What `error` holds when a call did not answer 200. */
export type ScrapegateErrorBody = ErrorBody | ValidationErrorBody;

/**
 * Tells a 422 body from the others. It takes `unknown` because something between the client
 * and scrapegate (a proxy answering 502 with HTML) can hand back a body the document never
 * promised, and openapi-fetch passes that through as `error`.
 */
export function isValidationError(error: unknown): error is ValidationErrorBody {
  return typeof error === 'object' && error !== null && 'detail' in error && Array.isArray(error.detail);
}

function isErrorBody(error: unknown): error is ErrorBody {
  return typeof error === 'object' && error !== null && 'detail' in error && typeof error.detail === 'string';
}

/** One line for logs or a thrown Error: the detail, or each issue as `query.timeout: msg`. */
export function errorMessage(error: unknown): string {
  if (isValidationError(error)) return error.detail.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ');
  if (isErrorBody(error)) return error.detail;
  if (typeof error === 'string' && error.length > 0) return error;
  return 'scrapegate answered an error without a body';
}
