import { AlreadyChargedError, LedgerRowExistsError } from '../billing/ledger-row-errors.js';
import { outcomeOf, type Outcome } from '../scrape/outcome.js';

/**
 * What the job engine does with an item's failed attempt:
 * - `job`: the key itself is refused (unknown or revoked, used from elsewhere, out of credits):
 *   no item of the job can run, so the job fails and every item not started with it;
 * - `later`: the service, not the target, could not take it now (the key's concurrency, a busy
 *   queue, a restart, the database away): queued again soon, the attempt not counted;
 * - `retry`: the target failed (unreachable, 5xx, timed out, walled, the renderer crashed):
 *   tried again with backoff while retries remain, else failed;
 * - `final`: a refusal that another attempt cannot change (a value the service will not act on).
 */
export type Decision = 'job' | 'later' | 'retry' | 'final' | 'charged';

const BY_OUTCOME: Readonly<Record<Outcome, Decision>> = {
  ok: 'final',
  invalid_key: 'job',
  ip_restricted: 'job',
  out_of_credits: 'job',
  concurrency_limit: 'later',
  budget_exceeded: 'later',
  busy: 'later',
  shutting_down: 'later',
  store_unavailable: 'later',
  charge_not_recorded: 'later',
  target_unreachable: 'retry',
  timeout: 'retry',
  target_unusable: 'retry',
  page_crashed: 'retry',
  walled: 'retry',
  browser_failed: 'retry',
  internal: 'retry',
  element_not_found: 'final',
  invalid_value: 'final',
  too_costly: 'final',
  cancelled: 'final',
};

export function decide(err: unknown): Decision {
  if (err instanceof AlreadyChargedError) return 'charged';
  if (err instanceof LedgerRowExistsError) return 'later';
  return BY_OUTCOME[outcomeOf(err)];
}

/** The code an item's failure is listed with in `/errors` (Firecrawl's clients read a few: SCRAPE_TIMEOUT). */
export function errorCode(err: unknown): string {
  const outcome = outcomeOf(err);
  return outcome === 'timeout' ? 'SCRAPE_TIMEOUT' : outcome.toUpperCase();
}

/**
 * The delay before retry number `attempt` (1, 2, …): `baseMs` doubled each time, with full jitter
 * over its upper half so that items failing together do not come back together.
 */
export function backoffMs(attempt: number, baseMs: number, random = Math.random): number {
  const ceiling = baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 16));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** A delay an error asks for is kept to this (a host's back-off is capped below it anyway). */
const MAX_ASKED_MS = 10 * 60_000;
const LATER_JITTER_MS = 50;

/**
 * When a `later` attempt comes back (with jitter): when the error says (`retryInMs`: a crawl's
 * host is not free until then), then; the HTML workers' queue frees within milliseconds, anything
 * else (a restart, the database, the key's slots) takes longer.
 */
export function laterMs(err: unknown, random = Math.random): number {
  const asked = (err as { retryInMs?: unknown } | undefined)?.retryInMs;
  if (typeof asked === 'number' && Number.isFinite(asked) && asked >= 0) return Math.round(Math.min(asked, MAX_ASKED_MS) + random() * LATER_JITTER_MS);
  const base = outcomeOf(err) === 'busy' ? 100 : 1_000;
  return Math.round(base + random() * base);
}
