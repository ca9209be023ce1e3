import type { Request } from 'express';
import type { Validated } from '../routing/operations.js';
import type { ForwardedMethod } from '../../engines/fetcher.js';
import { clientAddressOf } from '../client-address.js';
import { apiKeyOf } from './api-key-of.js';
import { toScrapeRequest } from './request-params.js';
import type { ScrapeRequest } from '../../scrape/scrape-request.js';

export type V2GeneralOperation = 'v2GeneralGet' | 'v2GeneralPost' | 'v2GeneralPut' | 'v2GeneralDelete';
export type V2ExtendedOperation = 'v2ExtendedGet' | 'v2ExtendedPost' | 'v2ExtendedPut' | 'v2ExtendedDelete';
export type V2MarkdownOperation = 'v2MarkdownGet' | 'v2MarkdownPost' | 'v2MarkdownPut' | 'v2MarkdownDelete';

/** v2 general, extended and markdown read one request the same way: query parameters, method and raw body forwarded. */
export function v2ScrapeRequest(
  v: Validated<V2GeneralOperation | V2ExtendedOperation | V2MarkdownOperation>,
  req: Request,
  collectExtras: boolean,
  htmlWork: boolean,
): { apiKey: string; request: ScrapeRequest } {
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
    htmlWork,
    forwardHeaders: true,
    timeoutSeconds: v.query.timeout,
    clientAddress: clientAddressOf(req),
  });
  return { apiKey: apiKeyOf(req.get('x-api-key'), v.query['x-api-key']), request };
}
