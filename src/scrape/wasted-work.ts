import { ExtractRulesError } from '../content/extract/extract-rules-error.js';
import { HtmlWorkError, HtmlWorkTooCostlyError } from '../content/html-work/html-work-errors.js';
import type { ScrapeRequest } from '../engines/scrape-request.js';
import type { Answer } from './answer.js';
import { outcomeOf, type Outcome } from './outcome.js';

/** What a target can do to a browser request that ran: the page was loaded, and the caller's script run, for nothing. */
const BROWSER_WORK_WASTED: ReadonlySet<Outcome> = new Set(['target_unreachable', 'timeout', 'target_unusable', 'page_crashed', 'walled']);

/**
 * Work done for nothing, counted against the key's failure budget (billing/browser-budget.ts): a
 * browser request that ran and then failed on the target's side (unreachable, too slow, no
 * selector, an unusable answer, a page that crashed its renderer, a wall); or HTML work that ran
 * into a cost cap (an extraction's steps, results or size, a task's time or memory), where a
 * worker was held up to the cap. Refusals before any work (a full queue included), the caller
 * leaving, our own failures and other limits are not.
 */
export function wastedWork(request: Pick<ScrapeRequest, 'browser'>, answer: Pick<Answer<unknown>, 'htmlWork'>, err: unknown): 'browser' | 'html' | undefined {
  if (request.browser && !(err instanceof HtmlWorkError) && BROWSER_WORK_WASTED.has(outcomeOf(err))) return 'browser';
  if (answer.htmlWork && (err instanceof ExtractRulesError || err instanceof HtmlWorkTooCostlyError)) return 'html';
  return undefined;
}
