import type { Response } from 'express';
import type { ParamLocator } from './errors/to-api-error.js';

/** What one answer carries from its handler to the edge, typed once for every reader. */
declare global {
  namespace Express {
    interface Locals {
      /** Credits the answer was charged (the access log reads it; unset: nothing charged). */
      cost?: number;
      /** The request's row in the ledger, when it was billed (charged or refunded). */
      requestId?: string;
      /** Where each parameter of the answered operation stands, for the `loc` of a 422. */
      locate?: ParamLocator;
    }
  }
}

/** A billed request: its ledger row's id in `Svc-request-id`, on its answer whatever it is, and in the access log. */
export function recordRequestId(res: Response, requestId: string): void {
  res.locals.requestId = requestId;
  res.setHeader('Svc-request-id', requestId);
}

/** A charged answer: its cost in the `Svc-credits-cost` header and in the access log. */
export function recordCost(res: Response, cost: number): void {
  res.locals.cost = cost;
  res.setHeader('Svc-credits-cost', String(cost));
}

/**
 * What a scrape needs of the answer it is for: where its ledger id goes, and a signal that aborts
 * when the caller hangs up before the answer was sent (the scrape then stops, uncharged).
 */
export function scrapeCall(res: Response): { billed: (requestId: string) => void; cancelled: AbortSignal } {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableEnded) controller.abort();
  });
  return { billed: (id) => recordRequestId(res, id), cancelled: controller.signal };
}
