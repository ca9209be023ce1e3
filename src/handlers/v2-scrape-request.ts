import type { Request } from 'express';
import type { Validated } from '../api/operations.js';
import type { ForwardedMethod } from '../fetchers/fetcher.js';
import { toScrapeRequest } from '../scrape/request-params.js';
import type { ScrapeRequest } from '../scrape/scrape-request.js';

export type V2GeneralOperation = 'v2GeneralGet' | 'v2GeneralPost' | 'v2GeneralPut' | 'v2GeneralDelete';
export type V2ExtendedOperation = 'v2ExtendedGet' | 'v2ExtendedPost' | 'v2ExtendedPut' | 'v2ExtendedDelete';

/** v2 general and extended read one request the same way: query parameters, method and raw body forwarded. */
export function v2ScrapeRequest(v: Validated<V2GeneralOperation | V2ExtendedOperation>, req: Request, collectExtras: boolean): { apiKey: string; request: ScrapeRequest } {
  const body = Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined;
  const request = toScrapeRequest(v.query, {
    operation: v.operation,
    method: req.method as ForwardedMethod,
    body,
    rawHeaders: req.rawHeaders,
    collectExtras,
    // Only the extended answer lists cookies and text; the general one carries the target's Set-Cookie headers.
    wantsCookies: collectExtras,
    wantsText: collectExtras,
    forwardHeaders: true,
    timeoutSeconds: v.query.timeout,
  });
  return { apiKey: v.query['x-api-key'], request };
}
