import type { OperationHandlers } from '../routing/operations.js';
import type { Answers } from '../../scrape/answers/answers.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';
import { v1GeneralGet, v1GeneralPost } from './v1-general.js';
import { v2Capture } from './v2-capture.js';
import { v2Extended } from './v2-extended.js';
import { v2General } from './v2-general.js';
import { v2Markdown } from './v2-markdown.js';
import { v2Usage } from './v2-usage.js';

/** Every operationId of the OpenAPI document and the handler that answers it. */
export function operationHandlers(service: ScrapeService, answers: Answers): OperationHandlers {
  const general = v2General(service, answers);
  const extended = v2Extended(service, answers);
  const markdown = v2Markdown(service, answers);
  return {
    v1GeneralGet: v1GeneralGet(service, answers),
    v1GeneralPost: v1GeneralPost(service, answers),
    v2GeneralGet: general,
    v2GeneralPost: general,
    v2GeneralPut: general,
    v2GeneralDelete: general,
    v2ExtendedGet: extended,
    v2ExtendedPost: extended,
    v2ExtendedPut: extended,
    v2ExtendedDelete: extended,
    v2MarkdownGet: markdown,
    v2MarkdownPost: markdown,
    v2MarkdownPut: markdown,
    v2MarkdownDelete: markdown,
    v2ScreenshotGet: v2Capture(service, answers),
    v2PdfGet: v2Capture(service, answers),
    v2Usage: v2Usage(service),
  };
}
