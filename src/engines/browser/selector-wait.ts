import { pause } from '../retry-delays.js';
import type { PageReader } from './page-reader.js';

/** How often a selector being waited for is looked for again. */
export const SELECTOR_POLL_MS = 50;

/** The time a selector wait has: what remains of it, and what ends it early. */
export interface SelectorWaitTime {
  remainingMs(): number;
  /** The deadline or the caller leaving: the wait ends at once, unmatched. */
  ends: AbortSignal;
  /** Called between polls (a render leaves there once its caller has). */
  betweenPolls?(): void;
}

/**
 * Polls the main document until `selector` matches: true then, false once the time is up or
 * `ends` aborted. The one wait both `wait_for_selector` and a `wait {selector}` action use; each
 * says in its own words what a miss means. InvalidSelectorError (Chromium refused the selector)
 * passes through.
 */
export async function selectorAppears(reader: Pick<PageReader, 'matches'>, selector: string, time: SelectorWaitTime): Promise<boolean> {
  while (!(await reader.matches(selector))) {
    time.betweenPolls?.();
    if (time.ends.aborted || time.remainingMs() <= 0) return false;
    await pause(Math.min(SELECTOR_POLL_MS, time.remainingMs()), time.ends);
  }
  return true;
}
