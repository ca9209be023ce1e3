import type { components } from '../../generated/firecrawl-client-types.js';

/** Every error of the Firecrawl dialect: `{ success: false, error, code?, details? }`. */
export type FirecrawlErrorBody = components['schemas']['Error'];
/** With HTTP 400, one field found wrong: its path in the body and why. */
export type FirecrawlIssue = components['schemas']['Issue'];

/**
 * Tells the dialect's error body from anything else. It takes `unknown` because something between
 * the client and scrapegate (a proxy answering 502 with HTML) can hand back a body the document
 * never promised, and openapi-fetch passes that through as `error`.
 */
export function isFirecrawlError(error: unknown): error is FirecrawlErrorBody {
  return typeof error === 'object' && error !== null && 'success' in error && error.success === false && 'error' in error && typeof error.error === 'string';
}

/** One line for logs or a thrown Error: the error, its code, and each wrong field as `actions.3.selector: msg`. */
export function firecrawlErrorMessage(error: unknown): string {
  if (isFirecrawlError(error)) {
    const code = error.code ? ` (${error.code})` : '';
    const details = (error.details ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    return [`${error.error}${code}`, ...details].join('; ');
  }
  if (typeof error === 'string' && error.length > 0) return error;
  return 'scrapegate answered an error without a body';
}
