import type { OperationHandler } from '../api/operations.js';
import { recordCost, recordRequestId } from '../http/answer-locals.js';
import { bodyContentType, v2Headers } from '../scrape/page-answers.js';
import type { ScrapeService } from '../scrape/scrape-service.js';
import { v2ScrapeRequest, type V2GeneralOperation } from './v2-scrape-request.js';

/** v2GeneralGet/Post/Put/Delete: the target's bytes as the body, metadata in headers. */
export function v2General(service: ScrapeService): OperationHandler<V2GeneralOperation> {
  return async (v, req, res) => {
    const { apiKey, request } = v2ScrapeRequest(v, req, false);
    const { page, cost } = await service.scrape(apiKey, request, (p) => p, (id) => recordRequestId(res, id));
    recordCost(res, cost);
    for (const [name, value] of v2Headers(page)) {
      try {
        res.append(name, value);
      } catch {
        // A value Node refuses to send (a control character) is dropped rather than failing the answer.
      }
    }
    res.setHeader('Content-Type', bodyContentType(page) ?? 'application/octet-stream');
    res.status(200).end(page.body);
  };
}
