import type { Request, Response } from 'express';
import type { OperationHandler, Validated } from '../routing/operations.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import type { CaptureSpec } from '../../engines/fetcher.js';
import { recordCost, scrapeCall } from '../answer-locals.js';
import { clientAddressOf } from '../client-address.js';
import { apiKeyOf } from '../decode/api-key-of.js';
import { toScrapeRequest } from '../decode/request-params.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';
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
export function v2Capture(service: ScrapeService): OperationHandler<CaptureOperation> {
  return async (v: Validated<CaptureOperation>, req: Request, res: Response) => {
    const capture = v.operation === 'v2ScreenshotGet' ? screenshotSpec(v.query) : pdfSpec(v.query);
    const request = {
      ...toScrapeRequest({ ...v.query, browser: true }, {
        operation: v.operation,
        method: 'GET',
        body: undefined,
        rawHeaders: req.rawHeaders,
        collectExtras: false,
        wantsCookies: false,
        wantsText: false,
        htmlWork: false,
        forwardHeaders: true,
        timeoutSeconds: v.query.timeout,
        clientAddress: clientAddressOf(req),
      }),
      capture,
    };
    const apiKey = apiKeyOf(req.get('x-api-key'), v.query['x-api-key']);
    // Shaped inside the billing: an engine that came back without the capture is refunded, never charged.
    const { answer: shot, page, cost } = await service.scrape(apiKey, request, (p) => {
      if (!p.capture) throw new Error('the engine answered without the capture it was asked for');
      return p.capture;
    }, scrapeCall(res));
    recordCost(res, cost);
    appendV2Headers(res, page);
    if (shot.truncated) res.setHeader('Svc-screenshot-truncated', 'true');
    res.setHeader('Content-Type', shot.contentType);
    res.status(200).end(shot.data);
  };
}
