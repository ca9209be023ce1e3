import type { components } from '../generated/openapi-types.js';

const ORIGINAL_PREFIX = 'svc-original-header-';

/** The metadata a v2 answer (`/v2/general`, `/v2/extended`) carries in its `Svc-` headers. */
export interface SvcHeaders {
  /** `Svc-credits-cost`: what this request cost. */
  creditsCost: components['headers']['CreditsCost'];
  /** `Svc-page-status-code`: the target's status; a target 404 is still an outer 200. */
  pageStatusCode: components['headers']['PageStatusCode'];
  /** Each `svc-original-header-<name>`, under its original `<name>` (case-insensitive). */
  originalHeaders: Headers;
}

function integerHeader(response: Response, name: string): number {
  const raw = response.headers.get(name);
  const value = raw === null ? NaN : Number(raw);
  if (!Number.isInteger(value)) {
    // Only a 200 answer of a v2 scrape has them; reading them elsewhere is a caller's mistake
    // that a silent NaN would hide.
    throw new TypeError(`the answer (HTTP ${response.status}) has no integer ${name} header: only 200 answers of /v2/general and /v2/extended carry it`);
  }
  return value;
}

/**
 * openapi-fetch leaves response headers untyped (`response.headers`), so this reads the ones
 * the document declares for v2 answers, and gathers the target's own headers without prefix.
 */
export function readSvcHeaders(response: Response): SvcHeaders {
  const originalHeaders = new Headers();
  response.headers.forEach((value, name) => {
    if (name.startsWith(ORIGINAL_PREFIX) && name.length > ORIGINAL_PREFIX.length) {
      originalHeaders.append(name.slice(ORIGINAL_PREFIX.length), value);
    }
  });
  return {
    creditsCost: integerHeader(response, 'svc-credits-cost'),
    pageStatusCode: integerHeader(response, 'svc-page-status-code'),
    originalHeaders,
  };
}
