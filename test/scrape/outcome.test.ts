import { expect } from 'chai';
import { BrowserBudgetExceededError, ConcurrencyLimitError, InsufficientCreditsError, InvalidKeyError, IpRestrictedError } from '../../src/billing/billing-refusals.js';
import { ChargeNotRecordedError } from '../../src/billing/charge-not-recorded-error.js';
import { StoreUnavailableError } from '../../src/billing/store-unavailable-error.js';
import { ExtractRulesError } from '../../src/content/extract/extract-rules-error.js';
import { HtmlWorkBusyError, HtmlWorkCancelledError, HtmlWorkTooCostlyError } from '../../src/content/html-work/html-work-errors.js';
import { DeadlineExceededError, EgressError, ProxyUnavailableError, TargetTooLargeError, TargetUnreachableError, TargetUnusableError } from '../../src/egress/fetch-errors.js';
import { BrowserFailureError, ElementNotFoundError, EngineUnavailableError, InvalidSelectorError, PageCrashedError, SelectorTimeoutError } from '../../src/engines/engine-errors.js';
import { inQuery, toApiError } from '../../src/http/errors/to-api-error.js';
import { InvalidActionError } from '../../src/engines/browser/actions/action-limits.js';
import { AntiBotDetectedError } from '../../src/scrape/anti-bot-error.js';
import { InvalidValueError } from '../../src/scrape/invalid-value-error.js';
import { OUTCOME_STATUS, outcomeOf, statusOf } from '../../src/scrape/outcome.js';
import { ShuttingDownError } from '../../src/scrape/shutting-down-error.js';
import { ClientCancelledError } from '../../src/time/client-cancelled-error.js';

/** One of every error a scrape can end with, from every layer. */
const EVERY_ERROR: Error[] = [
  new TargetUnreachableError('x'),
  new EgressError('refused', 'connection refused'),
  new DeadlineExceededError('x'),
  new TargetUnusableError('x'),
  new TargetTooLargeError('x'),
  new ProxyUnavailableError('proxy_country', 'x'),
  new PageCrashedError('x'),
  new SelectorTimeoutError('x'),
  new InvalidSelectorError('x', 'screenshot_selector'),
  new InvalidActionError('actions.0.selector', 'x'),
  new ElementNotFoundError('x'),
  new BrowserFailureError('x', true),
  new EngineUnavailableError('x'),
  new AntiBotDetectedError('cloudflare', 'challenge'),
  new InvalidValueError('url', 'x', 'value_error.url'),
  new ExtractRulesError([{ path: ['a'], msg: 'x', type: 'value_error.extract_rules' }]),
  new HtmlWorkBusyError('key', 2),
  new HtmlWorkTooCostlyError('url', 'x'),
  new HtmlWorkCancelledError(),
  new InvalidKeyError(),
  new IpRestrictedError('203.0.113.7'),
  new InsufficientCreditsError(10, 1, Date.now()),
  new ConcurrencyLimitError(1),
  new BrowserBudgetExceededError(10, 12, 60),
  new ClientCancelledError(),
  new ShuttingDownError(),
  new ChargeNotRecordedError('r', false),
  new StoreUnavailableError(false),
];

describe('outcomes: what the ledger records and the edge answers', () => {
  it('every error names an outcome, and the edge answers each with the status the ledger records', () => {
    for (const err of EVERY_ERROR) {
      expect(outcomeOf(err), err.name).to.not.equal('internal');
      expect(toApiError(err, inQuery, 0)?.status, err.name).to.equal(statusOf(err));
    }
  });

  it('a bug names none: internal, a 500', () => {
    expect(outcomeOf(new TypeError('x'))).to.equal('internal');
    expect(statusOf(undefined)).to.equal(500);
    expect(OUTCOME_STATUS.internal).to.equal(500);
  });

  it("a target's failure is never a 5xx; the browser's own failure is", () => {
    for (const err of [new TargetUnreachableError('x'), new DeadlineExceededError('x'), new TargetUnusableError('x'), new PageCrashedError('x')]) expect(statusOf(err)).to.equal(404);
    expect(statusOf(new BrowserFailureError('x', false))).to.equal(500);
  });
});
