import type { BillingRefusal } from '../billing/billing-refusals.js';
import type { ChargeNotRecordedError } from '../billing/charge-not-recorded-error.js';
import type { StoreUnavailableError } from '../billing/store-unavailable-error.js';
import type { ExtractRulesError } from '../content/extract/extract-rules-error.js';
import type { HtmlWorkError } from '../content/html-work/html-work-errors.js';
import type { FetchError } from '../egress/fetch-errors.js';
import type { ClientCancelledError } from '../time/client-cancelled-error.js';
import type { AntiBotDetectedError } from './anti-bot-error.js';
import type { InvalidValueError } from './invalid-value-error.js';
import type { ShuttingDownError } from './shutting-down-error.js';

/**
 * How a scrape ended, in the service's words: what each layer's errors say of themselves (their
 * `outcome`), plus success and a bug. The ledger records a request by the status its contract
 * gives its outcome; the HTTP edge answers with the same status (a test holds the two together).
 */
export type Outcome =
  | 'ok'
  | 'internal'
  | FetchError['outcome']
  | BillingRefusal['outcome']
  | HtmlWorkError['outcome']
  | AntiBotDetectedError['outcome']
  | InvalidValueError['outcome']
  | ExtractRulesError['outcome']
  | ClientCancelledError['outcome']
  | ShuttingDownError['outcome']
  | ChargeNotRecordedError['outcome']
  | StoreUnavailableError['outcome'];

/**
 * The status the service's contract gives each outcome (SERVICE-SPEC's error table): a target's
 * failure is a 404, never a 5xx (clients retry every 5xx, and retrying a dead target only burns
 * their time); a wall a 423; a refusal of the key or its credits a 403, of its concurrency a 409,
 * of its budget or the service's queues a 429; a caller's invalid value a 422; a caller gone a
 * 499 (nobody reads it); the service's own failure a 500.
 */
export const OUTCOME_STATUS: Readonly<Record<Outcome, number>> = {
  ok: 200,
  target_unreachable: 404,
  timeout: 404,
  target_unusable: 404,
  page_crashed: 404,
  element_not_found: 404,
  walled: 423,
  invalid_value: 422,
  too_costly: 422,
  invalid_key: 403,
  ip_restricted: 403,
  out_of_credits: 403,
  concurrency_limit: 409,
  budget_exceeded: 429,
  busy: 429,
  cancelled: 499,
  browser_failed: 500,
  shutting_down: 500,
  charge_not_recorded: 500,
  store_unavailable: 500,
  internal: 500,
};

/** The outcome an error names; anything that names none is a bug: `internal`. */
export function outcomeOf(err: unknown): Outcome {
  const named = (err as { outcome?: unknown } | null)?.outcome;
  return typeof named === 'string' && Object.hasOwn(OUTCOME_STATUS, named) ? (named as Outcome) : 'internal';
}

/** The status the ledger records, and the edge answers, for `err`. */
export function statusOf(err: unknown): number {
  return OUTCOME_STATUS[outcomeOf(err)];
}
