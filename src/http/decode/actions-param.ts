import { InvalidActionError, validActions } from '../../engines/browser/actions/action-limits.js';
import type { BrowserAction } from '../../engines/browser/actions/browser-action.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';

/** The most a Base64 `actions` parameter may decode to, in characters of JSON. */
const MAX_ACTIONS_JSON_CHARS = 256 * 1024;

/** Firecrawl's actions, validated for the engine; a wrong one is the caller's invalid value, named by its index. */
export function actionsOf(raw: unknown, timeoutMs: number): BrowserAction[] {
  try {
    return validActions(raw, timeoutMs);
  } catch (err) {
    if (err instanceof InvalidActionError) throw new InvalidValueError(err.param, err.message, 'value_error.actions');
    throw err;
  }
}

/** The sync API's `actions`: the same list, as Base64-encoded JSON. */
export function actionsParam(base64: string | undefined, timeoutMs: number): BrowserAction[] | undefined {
  if (base64 === undefined) return undefined;
  const text = Buffer.from(base64, 'base64').toString('utf8');
  if (text.length > MAX_ACTIONS_JSON_CHARS) throw new InvalidValueError('actions', `the actions may have at most ${MAX_ACTIONS_JSON_CHARS} characters of JSON`, 'value_error.actions');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidValueError('actions', 'actions must be Base64-encoded JSON: a list of actions', 'value_error.actions');
  }
  return actionsOf(parsed, timeoutMs);
}
