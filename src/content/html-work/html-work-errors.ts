/**
 * Why the HTML work on a fetched page (its text, its Markdown, its extraction) did not give an
 * answer. Not HTTP: to-api-error.ts decides the statuses (429, 422, 404).
 */
export abstract class HtmlWorkError extends Error {
  abstract readonly outcome: 'busy' | 'too_costly' | 'timeout';

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The HTML workers' queue (in all, or this key's share of it) is full: nothing was run. */
export class HtmlWorkBusyError extends HtmlWorkError {
  readonly outcome = 'busy';

  constructor(
    readonly scope: 'key' | 'all',
    readonly retryAfterSeconds: number,
  ) {
    super(
      scope === 'key'
        ? 'Too many requests of this key are waiting for their pages to be converted or extracted. Retry when some have been answered.'
        : 'The service is converting and extracting as many pages as it can queue. Retry shortly.',
    );
  }
}

/**
 * A task ran past its time or memory and its thread was ended: the page is too costly to work on. `param`
 * is what the caller can change: the rules of an extraction, else the page (its URL).
 */
export class HtmlWorkTooCostlyError extends HtmlWorkError {
  readonly outcome = 'too_costly';

  constructor(
    readonly param: 'extract_rules' | 'url',
    message: string,
  ) {
    super(message);
  }
}

/** The task was dropped from the queue before it ran: its request gave up (its deadline, or its caller). */
export class HtmlWorkCancelledError extends HtmlWorkError {
  readonly outcome = 'timeout';

  constructor() {
    super('the request ended while its page waited to be worked on');
  }
}
