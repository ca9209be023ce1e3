import type { Answers } from '../../scrape/answers/answers.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';
import { apiKeyOf } from '../decode/api-key-of.js';
import { v2ScrapeRequest, type V2ExtendedOperation } from '../decode/v2-scrape-request.js';
import type { OperationHandler } from '../routing/operations.js';
import { scrapeRoute } from './scrape-route.js';

/** `screenshot=true`: the window as the screenshot operation takes it by default. */
const WINDOW_SCREENSHOT = { kind: 'screenshot', format: 'png', quality: undefined, fullPage: false, selector: undefined, width: 1920, height: 1080 } as const;

/** v2ExtendedGet/Post/Put/Delete: the page, its text, cookies, headers, XHRs and iframes as JSON. */
export function v2Extended(service: ScrapeService, answers: Answers): OperationHandler<V2ExtendedOperation> {
  return scrapeRoute<V2ExtendedOperation, string>(service, {
    key: (v, req) => apiKeyOf(req.get('x-api-key'), v.query['x-api-key']),
    request: (v, req) => {
      const request = v2ScrapeRequest(v, req);
      if (!v.query.screenshot) return request;
      if (!request.browser) throw new InvalidValueError('screenshot', 'a screenshot needs browser=true', 'value_error.screenshot');
      return { ...request, capture: WINDOW_SCREENSHOT };
    },
    answer: async (v, keyHash) => answers.extended(v.query.extract_rules === undefined ? undefined : await answers.rules(v.query.extract_rules, keyHash)),
    respond: (res, { answer, page }) => {
      res.setHeader('Svc-page-status-code', String(page.status));
      res.status(200).type('json').send(answer);
    },
  });
}
