import { parse } from 'css-what';
import { InvalidSelectorError } from '../engine-errors.js';

/**
 * Refuses a selector that is not CSS before a browser is taken or the target contacted. The
 * few that parse here but not in Chromium are caught when Chromium is asked to wait for them.
 */
export function assertValidSelector(selector: string, param: 'wait_for_selector' | 'screenshot_selector' = 'wait_for_selector'): void {
  try {
    parse(selector);
  } catch {
    throw new InvalidSelectorError(`"${selector}" is not a valid CSS selector`, param);
  }
}
