/**
 * The target answered with a status worth trying again (5xx, 429) while the item has retries
 * left: thrown before the charge, so the attempt is refunded and only the final outcome is charged.
 * `retryAfterMs`: what its Retry-After asked for, when it said (a crawl backs its host off that long).
 */
export class RetryablePageError extends Error {
  readonly outcome = 'target_unusable';

  constructor(readonly status: number, readonly retryAfterMs?: number) {
    super(`the target answered ${status}`);
    this.name = 'RetryablePageError';
  }
}

/** A Retry-After honoured up to an hour. */
const MAX_RETRY_AFTER_MS = 3_600_000;

/** Retry-After's seconds or HTTP date as ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}
