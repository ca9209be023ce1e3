import type { BrowserFailureBudget, Debit, KeyAccount } from './billing-store.js';

/**
 * A browser request that fails (404, 423) is refunded, yet it ran the page, and the caller's
 * script, in one of the service's browsers; a request whose HTML work hits a cost cap (422) is
 * refunded, yet it held an HTML worker up to that cap. So that this work cannot be had for free
 * forever, a key may fail uncharged `allowance` times per window, and more only while its failures
 * are at most half of its budgeted requests (Debit.budgeted) in the window. The store applies the
 * same rule inside its debit statement (no round trip); this says whether `key`, as read, is past it.
 */
export function pastBudget(key: KeyAccount, { budgeted, at }: Debit, { allowance, windowMs }: BrowserFailureBudget): boolean {
  if (!budgeted || allowance === 0) return false;
  const windowOpen = key.browserWindowStart > at - windowMs;
  return windowOpen && key.browserFailures >= allowance && key.browserFailures * 2 >= key.browserAttempts;
}

/** Seconds until the key's window ends and its budgeted requests are taken again. */
export function secondsUntilWindowEnds(key: KeyAccount, at: number, { windowMs }: BrowserFailureBudget): number {
  return Math.max(1, Math.ceil((key.browserWindowStart + windowMs - at) / 1000));
}
