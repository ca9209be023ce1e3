import type { OperationHandler } from '../routing/operations.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import { recordCost, scrapeCall } from '../answer-locals.js';
import type { PageAnswers } from '../../scrape/page-answers.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';
import { v2ScrapeRequest, type V2ExtendedOperation } from '../decode/v2-scrape-request.js';

/** `screenshot=true`: the window as the screenshot operation takes it by default. */
const WINDOW_SCREENSHOT = { kind: 'screenshot', format: 'png', quality: undefined, fullPage: false, selector: undefined, width: 1920, height: 1080 } as const;

/** v2ExtendedGet/Post/Put/Delete: the page, its text, cookies, headers, XHRs and iframes as JSON. */
export function v2Extended(service: ScrapeService, answers: PageAnswers): OperationHandler<V2ExtendedOperation> {
  return async (v, req, res) => {
    // The text of a plain page is HTML work; a rendered page's comes from the browser, a budgeted request already.
    const { apiKey, request } = v2ScrapeRequest(v, req, true, true);
    if (v.query.screenshot) {
      if (!request.browser) throw new InvalidValueError('screenshot', 'a screenshot needs browser=true', 'value_error.screenshot');
      request.capture = WINDOW_SCREENSHOT;
    }
    const rules = v.query.extract_rules === undefined ? undefined : await answers.rules(v.query.extract_rules, apiKey);
    const { answer, page, cost } = await service.scrape(apiKey, request, (p, owner) => answers.extendedJson(p, owner, rules), scrapeCall(res));
    recordCost(res, cost);
    res.setHeader('Svc-page-status-code', String(page.status));
    res.status(200).type('json').send(answer);
  };
}
