import type { OperationHandler } from '../routing/operations.js';
import { recordCost, scrapeCall } from '../answer-locals.js';
import type { FetchedPage } from '../../engines/fetcher.js';
import type { HtmlWorkOwner } from '../../content/html-work/html-workers.js';
import type { PageAnswers } from '../../scrape/page-answers.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';
import { v2ScrapeRequest, type V2MarkdownOperation } from '../decode/v2-scrape-request.js';

/** v2MarkdownGet/Post/Put/Delete: general's request, answered as `{url, markdown}` at general's cost. */
export function v2Markdown(service: ScrapeService, answers: PageAnswers): OperationHandler<V2MarkdownOperation> {
  return async (v, req, res) => {
    const { apiKey, request } = v2ScrapeRequest(v, req, false, true);
    const shape = (p: FetchedPage, owner: HtmlWorkOwner) => answers.markdownResult(p, v.query.url, v.query.only_main_content, owner);
    const { answer, page, cost } = await service.scrape(apiKey, request, shape, scrapeCall(res));
    recordCost(res, cost);
    res.setHeader('Svc-page-status-code', String(page.status));
    res.status(200).json(answer);
  };
}
