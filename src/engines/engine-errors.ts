import { FetchError, TargetUnusableError, UnservedValueError } from '../egress/fetch-errors.js';

/**
 * What the engines add to the way-out's failures (egress/fetch-errors.ts): a page's own doing, a
 * parameter the browser refuses, and the browser's own failure. Fetchers throw only FetchErrors
 * (or bugs).
 */

/**
 * The page crashed the renderer it ran in (it ran out of memory, or reached another of the
 * browser's limits): the page's doing, which retrying does not change, not the browser's failure.
 */
export class PageCrashedError extends TargetUnusableError {
  override readonly outcome = 'page_crashed';
}

/** The awaited selector did not appear before the deadline (the session is sound, unlike after a deadline that cut a render). */
export class SelectorTimeoutError extends FetchError {
  readonly outcome = 'timeout';
}

/** The selector is not valid CSS; `param` names the parameter that gave it. */
export class InvalidSelectorError extends UnservedValueError {
  constructor(
    message: string,
    readonly param: 'wait_for_selector' | 'screenshot_selector' = 'wait_for_selector',
  ) {
    super(message);
  }
}

/** The element to capture is not on the page (or has no size). */
export class ElementNotFoundError extends FetchError {
  readonly outcome = 'element_not_found';
}

/** The browser itself failed (crashed, killed, lost its driver): scrapegate's failure, not the target's. */
export class BrowserFailureError extends FetchError {
  readonly outcome = 'browser_failed';

  constructor(
    message: string,
    /** Whether the target had been sent the request before the failure. */
    readonly targetContacted: boolean,
  ) {
    super(message);
  }
}

/** The engine asked for is not available on this server. */
export class EngineUnavailableError extends UnservedValueError {
  readonly param = 'browser';
}
