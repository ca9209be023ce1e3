import type { Capture } from '../../engines/fetcher.js';
import type { CaptureSpec } from '../../engines/scrape-request.js';
import type { Answers } from '../../scrape/answers/answers.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';
import { apiKeyOf } from '../decode/api-key-of.js';
import { toScrapeRequest } from '../decode/request-params.js';
import type { OperationHandler, Validated } from '../routing/operations.js';
import { scrapeRoute } from './scrape-route.js';
import { appendV2Headers } from './v2-page-headers.js';

type CaptureOperation = 'v2ScreenshotGet' | 'v2PdfGet';

function screenshotSpec(q: Validated<'v2ScreenshotGet'>['query']): CaptureSpec {
  if (q.screenshot_quality !== undefined && q.screenshot_format !== 'jpeg') {
    throw new InvalidValueError('screenshot_quality', 'a quality applies to screenshot_format=jpeg only', 'value_error.screenshot_quality');
  }
  return {
    kind: 'screenshot',
    format: q.screenshot_format,
    quality: q.screenshot_quality,
    fullPage: q.screenshot_full_page,
    selector: q.screenshot_selector || undefined,
    width: q.window_width,
    height: q.window_height,
  };
}

function pdfSpec(q: Validated<'v2PdfGet'>['query']): CaptureSpec {
  return { kind: 'pdf', paper: q.pdf_format, landscape: q.landscape, printBackground: q.print_background };
}

/**
 * v2ScreenshotGet and v2PdfGet: always a browser render, with every browser parameter, answered
 * with the image or the PDF as the body and the general answer's `Svc-` headers.
 */
export function v2Capture(service: ScrapeService, answers: Answers): OperationHandler<CaptureOperation> {
  return scrapeRoute<CaptureOperation, Capture>(service, {
    key: (v, req) => apiKeyOf(req.get('x-api-key'), v.query['x-api-key']),
    request: (v: Validated<CaptureOperation>, req) => ({
      ...toScrapeRequest({ ...v.query, browser: true }, { method: 'GET', body: undefined, forwardFrom: req.rawHeaders, timeoutSeconds: v.query.timeout }),
      capture: v.operation === 'v2ScreenshotGet' ? screenshotSpec(v.query) : pdfSpec(v.query),
    }),
    answer: () => answers.capture(),
    respond: (res, { answer: shot, page }) => {
      appendV2Headers(res, page);
      if (shot.truncated) res.setHeader('Svc-screenshot-truncated', 'true');
      res.setHeader('Content-Type', shot.contentType);
      res.status(200).end(shot.data);
    },
  });
}
