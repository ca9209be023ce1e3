import { DeadlineExceededError } from '../../../egress/fetch-errors.js';
import { ClientCancelledError } from '../../../time/client-cancelled-error.js';
import { InvalidSelectorError } from '../../engine-errors.js';
import { timed } from '../render-steps.js';
import { InvalidActionError } from './action-limits.js';
import { actionTime, type ActionPage } from './action-page.js';
import { ActionResultsBuilder } from './action-results.js';
import type { ActionResults, BrowserAction } from './browser-action.js';
import { pdf, scrape, screenshot } from './capture-actions.js';
import { click, scroll, wait } from './element-actions.js';
import { press, write } from './keyboard-actions.js';
import { executeJavascript } from './script-action.js';

/**
 * Runs the request's actions in order on the loaded page, within the render's deadline (each
 * one starts only while time remains; one still running at the deadline is abandoned with the
 * render, its session killed). A selector that matches nothing, or that Chromium refuses, is the
 * caller's error, naming the action's index. Where the page goes meanwhile (a click that navigates, a popup) is the egress
 * gateway's to judge, as for every request of the browser; the browser context the render ran in
 * is discarded after it, with whatever was typed, stored or signed in.
 */
export async function runActions(page: ActionPage, actions: readonly BrowserAction[], session: number): Promise<ActionResults> {
  const results = new ActionResultsBuilder();
  for (const [index, action] of actions.entries()) {
    if (page.ends.aborted && !page.deadline.expired) throw new ClientCancelledError();
    if (actionTime(page) <= 0) throw new DeadlineExceededError(`the actions did not finish within the ${Math.round(page.deadline.budgetMs / 1000)}-second deadline (at action ${index})`);
    await timed(session, `action.${action.type}`, () => runOne(page, action, index, results)).catch((err: unknown) => {
      // CSS that parsed at submission but that Chromium refuses: the caller's, named by the action.
      if (err instanceof InvalidSelectorError) throw new InvalidActionError(`actions.${index}.selector`, `action ${index}: ${err.message}`);
      throw err;
    });
  }
  return results.get();
}

async function runOne(page: ActionPage, action: BrowserAction, index: number, results: ActionResultsBuilder): Promise<void> {
  switch (action.type) {
    case 'wait':
      return wait(page, action, index);
    case 'click':
      return click(page, action, index);
    case 'write':
      return write(page, action);
    case 'press':
      return press(page, action);
    case 'scroll':
      return scroll(page, action, index);
    case 'screenshot':
      return results.screenshot(await screenshot(page, action));
    case 'pdf':
      return results.pdf(await pdf(page, action));
    case 'scrape':
      return results.scrape(await scrape(page));
    case 'executeJavascript': {
      const { returned, rawChars } = await executeJavascript(page, action);
      return results.javascriptReturn(returned, rawChars);
    }
  }
}
