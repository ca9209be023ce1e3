import type { Answers } from '../../scrape/answers/answers.js';
import { bodyContentType } from '../../scrape/answers/page-body.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';
import { apiKeyOf } from '../decode/api-key-of.js';
import { v2ScrapeRequest, type V2GeneralOperation } from '../decode/v2-scrape-request.js';
import type { OperationHandler } from '../routing/operations.js';
import { scrapeRoute } from './scrape-route.js';
import { appendV2Headers } from './v2-page-headers.js';

/**
 * v2GeneralGet/Post/Put/Delete: the target's bytes as the body, metadata in headers; with
 * `extract_rules`, what they took from the page as a JSON body instead.
 */
export function v2General(service: ScrapeService, answers: Answers): OperationHandler<V2GeneralOperation> {
  return scrapeRoute<V2GeneralOperation, string | undefined>(service, {
    key: (v, req) => apiKeyOf(req.get('x-api-key'), v.query['x-api-key']),
    request: v2ScrapeRequest,
    // Bad rules are refused before anything is reserved or fetched: they cost nothing.
    answer: async (v, keyHash) => (v.query.extract_rules === undefined ? answers.page() : answers.extracted(await answers.rules(v.query.extract_rules, keyHash))),
    respond: (res, { answer: extracted, page }) => {
      appendV2Headers(res, page);
      // The worker's JSON text, as it is.
      if (extracted !== undefined) return void res.status(200).type('json').send(extracted);
      res.setHeader('Content-Type', bodyContentType(page) ?? 'application/octet-stream');
      res.status(200).end(page.body);
    },
  });
}
