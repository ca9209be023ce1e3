import type { OperationHandler } from '../routing/operations.js';
import type { FetchedPage } from '../../engines/fetcher.js';
import { recordCost, scrapeCall } from '../answer-locals.js';
import type { HtmlWorkOwner } from '../../content/html-work/html-workers.js';
import { bodyContentType, type PageAnswers } from '../../scrape/page-answers.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';
import { appendV2Headers } from './v2-page-headers.js';
import { v2ScrapeRequest, type V2GeneralOperation } from '../decode/v2-scrape-request.js';

/**
 * v2GeneralGet/Post/Put/Delete: the target's bytes as the body, metadata in headers; with
 * `extract_rules`, what they took from the page as a JSON body instead.
 */
export function v2General(service: ScrapeService, answers: PageAnswers): OperationHandler<V2GeneralOperation> {
  return async (v, req, res) => {
    const { apiKey, request } = v2ScrapeRequest(v, req, false, v.query.extract_rules !== undefined);
    // Refused before anything is reserved or fetched: bad rules cost nothing.
    const rules = v.query.extract_rules === undefined ? undefined : await answers.rules(v.query.extract_rules, apiKey);
    const shape = (p: FetchedPage, owner: HtmlWorkOwner) => (rules ? answers.extractedJson(p, rules, owner) : undefined);
    const { answer: extracted, page, cost } = await service.scrape(apiKey, request, shape, scrapeCall(res));
    recordCost(res, cost);
    appendV2Headers(res, page);
    if (extracted !== undefined) {
      // The worker's JSON text, as it is.
      res.status(200).type('json').send(extracted);
      return;
    }
    res.setHeader('Content-Type', bodyContentType(page) ?? 'application/octet-stream');
    res.status(200).end(page.body);
  };
}
