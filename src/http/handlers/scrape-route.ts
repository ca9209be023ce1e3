import type { Request, Response } from 'express';
import { hashApiKey } from '../../billing/billing.js';
import type { ScrapeRequest } from '../../engines/scrape-request.js';
import type { Answer } from '../../scrape/answer.js';
import type { ScrapeResult, ScrapeService } from '../../scrape/scrape-service.js';
import { recordCost, scrapeCall } from '../answer-locals.js';
import { clientAddressOf } from '../client-address.js';
import type { OperationHandler, OperationId, Validated } from '../routing/operations.js';

/** What one kind of scraping operation states; scrapeRoute does the rest. */
export interface ScrapeRoute<K extends OperationId, T> {
  /** The key the request carries, where the operation takes it. */
  key(v: Validated<K>, req: Request): string;
  request(v: Validated<K>, req: Request): ScrapeRequest;
  /** The answer to make; it may refuse first (bad extract_rules cost nothing). */
  answer(v: Validated<K>, keyHash: string): Answer<T> | Promise<Answer<T>>;
  /** Writes the 200 (its cost and ledger id are on it already). */
  respond(res: Response, result: ScrapeResult<T>, v: Validated<K>): void;
}

/**
 * The chores every scraping operation shares, done once: the caller (its key's hash and its
 * address), the request decoded, the answer chosen, the scrape called with the caller's presence
 * (a hang-up stops it), and the answer's cost and ledger id in its headers and the access log.
 */
export function scrapeRoute<K extends OperationId, T>(service: ScrapeService, route: ScrapeRoute<K, T>): OperationHandler<K> {
  return async (v, req, res) => {
    const keyHash = hashApiKey(route.key(v, req));
    const request = route.request(v, req);
    const answer = await route.answer(v, keyHash);
    const { billed, cancelled } = scrapeCall(res);
    const result = await service.scrape({ operation: v.operation, caller: { keyHash, clientAddress: clientAddressOf(req) }, request, answer, cancelled, billed });
    recordCost(res, result.cost);
    route.respond(res, result, v);
  };
}
