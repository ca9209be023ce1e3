import type { ValidatedRequest } from '../api/openapi-router.js';
import type { Request } from 'express';
import type { ForwardedMethod } from '../fetchers/fetcher.js';
import { toScrapeRequest, type ValidatedParams } from '../scrape/request-params.js';
import type { ScrapeRequest } from '../scrape/scrape-request.js';

/** v2 general and extended read one request the same way: query parameters, method and raw body forwarded. */
export function v2ScrapeRequest(v: ValidatedRequest, req: Request, collectExtras: boolean): { apiKey: string; request: ScrapeRequest } {
  const params = v.query as ValidatedParams;
  const body = Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined;
  const request = toScrapeRequest(params, {
    method: req.method as ForwardedMethod,
    body,
    rawHeaders: req.rawHeaders,
    collectExtras,
    // Only the extended answer lists cookies; the general one carries the target's Set-Cookie headers.
    wantsCookies: collectExtras,
    forwardHeaders: true,
    source: 'query',
  });
  return { apiKey: String(params['x-api-key']), request };
}
