/** A receiver's Retry-After is honoured within these bounds. */
export const RETRY_AFTER_MIN_MS = 1_000;
export const RETRY_AFTER_MAX_MS = 86_400_000;
/** Up to this share of the gap before an attempt is added to it, so that many deliveries failed at once do not retry at once. */
const JITTER = 0.1;

/**
 * The delay a Retry-After header asks for (delta-seconds or an HTTP date), clamped to [1 s, 24 h];
 * undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  let ms: number;
  if (/^\d{1,10}$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (!Number.isFinite(at) || !/[a-z]/i.test(text)) return undefined;
    ms = at - now;
  }
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, ms));
}

/**
 * When the next attempt of a delivery runs, after `attemptsMade` failed: the schedule gives each
 * attempt's time after the event (WEBHOOK_RETRY_SCHEDULE), with jitter on the gap; a receiver's
 * Retry-After replaces it. Undefined: the schedule is exhausted, the delivery has failed.
 */
export function nextAttemptAt(scheduleMs: readonly number[], attemptsMade: number, createdAt: number, now: number, retryAfter: number | undefined, random: () => number = Math.random): number | undefined {
  if (attemptsMade >= scheduleMs.length) return undefined;
  if (retryAfter !== undefined) return now + retryAfter;
  const planned = scheduleMs[attemptsMade];
  const gap = planned - (attemptsMade > 0 ? scheduleMs[attemptsMade - 1] : 0);
  return Math.max(now, createdAt + planned + Math.floor(random() * JITTER * gap));
}
