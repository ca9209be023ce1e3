import { InvalidSelectorError } from '../../engine-errors.js';
import type { Deadline } from '../../../time/deadline.js';
import type { CdpSession } from '../cdp-session.js';
import type { PageReader } from '../page-reader.js';

/** What the actions of one render act through: the render's own tab, reader and time. */
export interface ActionPage {
  cdp: CdpSession;
  mainFrameId: string;
  reader: PageReader;
  /** Lays the page out in a window of this size (a screenshot's viewport). */
  useWindow(size: { width: number; height: number }): Promise<void>;
  deadline: Deadline;
  /** The deadline, or the caller leaving: whichever ends a wait first. */
  ends: AbortSignal;
  /** The most a page's HTML may have, in characters (a `scrape` action's too). */
  maxBodyBytes: number;
}

/** Kept back from the deadline for reading the page once the actions are done. */
const READ_RESERVE_MS = 1_000;

/** The time the actions may still take. */
export function actionTime(page: ActionPage): number {
  return page.deadline.remainingMs() - READ_RESERVE_MS;
}

/**
 * A fresh isolated world in the main frame's current document: the page's own objects (a
 * redefined `querySelector`, `scrollBy`) are not reachable from it, its DOM is.
 */
export async function isolatedWorld(page: ActionPage): Promise<number> {
  const world = await page.cdp.send<{ executionContextId: number }>('Page.createIsolatedWorld', { frameId: page.mainFrameId, worldName: 'scrapegate-actions', grantUniveralAccess: false });
  return world.executionContextId;
}

/**
 * `expression` (one of the actions' own, looking for `selector`) evaluated in a fresh isolated
 * world; its value (JSON) or undefined when it threw. InvalidSelectorError when Chromium refused
 * the selector (a DOMException: the only one these expressions throw) though it parsed as CSS.
 */
export async function inIsolation<T>(page: ActionPage, expression: string, selector: string): Promise<T | undefined> {
  const contextId = await isolatedWorld(page);
  const r = await page.cdp.send<{ result: { value?: T }; exceptionDetails?: { exception?: { className?: string } } }>(
    'Runtime.evaluate',
    { expression, contextId, returnByValue: true },
    Math.max(1, actionTime(page)),
  );
  if (r.exceptionDetails?.exception?.className === 'DOMException') throw new InvalidSelectorError(`"${selector}" is not a valid CSS selector`);
  return r.exceptionDetails ? undefined : r.result.value;
}
