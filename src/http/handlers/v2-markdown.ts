import type { components } from '../../generated/openapi-types.js';
import type { Answers } from '../../scrape/answers/answers.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';
import { apiKeyOf } from '../decode/api-key-of.js';
import { v2ScrapeRequest, type V2MarkdownOperation } from '../decode/v2-scrape-request.js';
import type { OperationHandler } from '../routing/operations.js';
import { scrapeRoute } from './scrape-route.js';

/** v2MarkdownGet/Post/Put/Delete: general's request, answered as `{url, markdown}` at general's cost. */
export function v2Markdown(service: ScrapeService, answers: Answers): OperationHandler<V2MarkdownOperation> {
  return scrapeRoute<V2MarkdownOperation, components['schemas']['MarkdownResult']>(service, {
    key: (v, req) => apiKeyOf(req.get('x-api-key'), v.query['x-api-key']),
    request: v2ScrapeRequest,
    answer: (v) => answers.markdown(v.query.url, v.query.only_main_content),
    respond: (res, { answer, page }) => {
      res.setHeader('Svc-page-status-code', String(page.status));
      res.status(200).json(answer);
    },
  });
}
