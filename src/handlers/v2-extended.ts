import type { OperationHandler } from '../api/operations.js';
import { recordCost, recordRequestId } from '../http/answer-locals.js';
import type { PageAnswers } from '../scrape/page-answers.js';
import type { ScrapeService } from '../scrape/scrape-service.js';
import { v2ScrapeRequest, type V2ExtendedOperation } from './v2-scrape-request.js';

/** v2ExtendedGet/Post/Put/Delete: the page, its text, cookies, headers, XHRs and iframes as JSON. */
export function v2Extended(service: ScrapeService, answers: PageAnswers): OperationHandler<V2ExtendedOperation> {
  return async (v, req, res) => {
    const { apiKey, request } = v2ScrapeRequest(v, req, true);
    const { answer, page, cost } = await service.scrape(apiKey, request, (p) => answers.extendedResult(p), (id) => recordRequestId(res, id));
    recordCost(res, cost);
    res.setHeader('Svc-page-status-code', String(page.status));
    res.status(200).json(answer);
  };
}
