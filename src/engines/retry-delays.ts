import type { Deadline } from '../time/deadline.js';

/**
 * Waits before each connection attempt: 0 first, then backing off from 100 ms to 2 s, for as
 * long as a further attempt still fits before the deadline ("retried as many times as fit").
 */
export function* connectRetryDelays(deadline: Deadline): Generator<number> {
  let delay = 0;
  for (;;) {
    if (deadline.remainingMs() <= delay) return;
    yield delay;
    delay = delay === 0 ? 100 : Math.min(delay * 2, 2000);
  }
}

/**
 * Waits `ms`, or less if `signal` aborts first (the deadline passing ends the wait, not the caller).
 * The abort listener goes when the wait ends either way: a render's signal lives for all its polls,
 * and one listener left per pause would pile up on it.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
