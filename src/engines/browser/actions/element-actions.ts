import { pause } from '../../retry-delays.js';
import { selectorAppears } from '../selector-wait.js';
import { InvalidActionError } from './action-limits.js';
import { actionTime, inIsolation, type ActionPage } from './action-page.js';
import { navigationWatch } from './navigation-watch.js';
import type { ActionOf } from './browser-action.js';

/** `click {all: true}` clicks this many elements at most. */
const MAX_CLICKS = 100;

const select = (selector: string) => `document.querySelectorAll(${JSON.stringify(selector)})`;

function missing(index: number, selector: string): InvalidActionError {
  return new InvalidActionError(`actions.${index}.selector`, `action ${index}: no element matches "${selector}"`);
}

/** The point at the middle of the `nth` match, scrolled into view first; null: no such element, or it has no size. */
function pointOf(page: ActionPage, selector: string, nth: number): Promise<{ x: number; y: number } | null | undefined> {
  return inIsolation(
    page,
    `(() => {
  const e = ${select(selector)}[${nth}];
  if (!e) return null;
  e.scrollIntoView({ block: 'center', inline: 'center' });
  const r = e.getBoundingClientRect();
  if (!(r.width >= 1 && r.height >= 1)) { if (typeof e.focus === 'function') e.focus(); e.click(); return { x: -1, y: -1 }; }
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
})()`,
    selector,
  );
}

/**
 * Clicks the first match (or every match, 100 at most) as a user would: the mouse pressed and
 * released at its middle, so that it takes the focus and the page's handlers see a trusted
 * event. An element with no size is clicked through the DOM. A click that starts a navigation
 * is followed until the new page has loaded (within the deadline): the egress gateway judges
 * where it goes, as it judges every request of the browser.
 */
export async function click(page: ActionPage, action: ActionOf<'click'>, index: number): Promise<void> {
  const count = (await inIsolation<number>(page, `${select(action.selector)}.length`, action.selector)) ?? 0;
  if (count === 0) throw missing(index, action.selector);
  const clicks = action.all ? Math.min(count, MAX_CLICKS) : 1;
  for (let nth = 0; nth < clicks; nth++) {
    if (actionTime(page) <= 0) return;
    const navigating = navigationWatch(page);
    try {
      const point = await pointOf(page, action.selector, nth);
      // The page changed under the clicks (one of them navigated): the rest are gone with it.
      if (!point) return;
      if (point.x >= 0) {
        for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased']) {
          await page.cdp.send('Input.dispatchMouseEvent', { type, x: point.x, y: point.y, button: 'left', buttons: type === 'mouseReleased' ? 0 : 1, clickCount: 1 });
        }
      }
      if (await navigating.settled()) return;
    } finally {
      navigating.stop();
    }
  }
}

/** Scrolls the window (or the first match) by one of its heights, up or down. */
export async function scroll(page: ActionPage, action: ActionOf<'scroll'>, index: number): Promise<void> {
  const sign = action.direction === 'up' ? -1 : 1;
  const target = action.selector === undefined ? 'null' : `${select(action.selector)}[0] || false`;
  const done = await inIsolation<boolean>(
    page,
    `(() => {
  const e = ${target};
  if (e === false) return false;
  if (e === null) window.scrollBy(0, ${sign} * window.innerHeight);
  else e.scrollBy(0, ${sign} * (e.clientHeight || window.innerHeight));
  return true;
})()`,
    action.selector ?? '',
  );
  if (done === false && action.selector !== undefined) throw missing(index, action.selector);
}

/** Waits for a selector to match (it is refused, naming the action, if it has not by the deadline), or for a time. */
export async function wait(page: ActionPage, action: ActionOf<'wait'>, index: number): Promise<void> {
  if (action.milliseconds !== undefined) {
    await pause(Math.max(0, Math.min(action.milliseconds, actionTime(page))), page.ends);
    return;
  }
  const selector = action.selector ?? '';
  const appeared = await selectorAppears(page.reader, selector, { remainingMs: () => actionTime(page), ends: page.ends });
  // Ended by the caller leaving or the deadline: the runner says which.
  if (!appeared && !page.ends.aborted) throw new InvalidActionError(`actions.${index}.selector`, `action ${index}: no element matched "${selector}" before the deadline`);
}
