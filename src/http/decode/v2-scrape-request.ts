import type { Request } from 'express';
import type { ForwardedMethod } from '../../engines/scrape-request.js';
import type { ScrapeRequest } from '../../engines/scrape-request.js';
import type { Validated } from '../routing/operations.js';
import { toScrapeRequest } from './request-params.js';

export type V2GeneralOperation = 'v2GeneralGet' | 'v2GeneralPost' | 'v2GeneralPut' | 'v2GeneralDelete';
export type V2ExtendedOperation = 'v2ExtendedGet' | 'v2ExtendedPost' | 'v2ExtendedPut' | 'v2ExtendedDelete';
export type V2MarkdownOperation = 'v2MarkdownGet' | 'v2MarkdownPost' | 'v2MarkdownPut' | 'v2MarkdownDelete';

/** v2 general, extended and markdown read one request the same way: query parameters, the method, the raw body and `svc-` headers forwarded. */
export function v2ScrapeRequest(v: Validated<V2GeneralOperation | V2ExtendedOperation | V2MarkdownOperation>, req: Request): ScrapeRequest {
  const body = Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined;
  return toScrapeRequest(v.query, { method: req.method as ForwardedMethod, body, forwardFrom: req.rawHeaders, timeoutSeconds: v.query.timeout });
}
