import type { Request, Response } from 'express';
import type { OperationHandler, ValidatedRequest } from '../api/openapi-router.js';
import { extendedResult } from '../scrape/page-answers.js';
import type { ScrapeService } from '../scrape/scrape-service.js';
import { v2ScrapeRequest } from './v2-scrape-request.js';

/** v2ExtendedGet/Post/Put/Delete: the page, its text, cookies, headers, XHRs and iframes as JSON. */
export function v2Extended(service: ScrapeService): OperationHandler {
  return async (v: ValidatedRequest, req: Request, res: Response) => {
    const { apiKey, request } = v2ScrapeRequest(v, req, true);
    const { page, cost } = await service.scrape(apiKey, request);
    res.locals.cost = cost;
    res.setHeader('Svc-credits-cost', String(cost));
    res.setHeader('Svc-page-status-code', String(page.status));
    res.status(200).json(extendedResult(page));
  };
}
