import { UnservedValueError } from '../../../egress/fetch-errors.js';
import { InvalidSelectorError } from '../../engine-errors.js';
import { assertValidSelector } from '../selector-check.js';
import { browserActionsSchema, MAX_ACTIONS, type BrowserAction } from './browser-action.js';
import { knownKey } from './keyboard-actions.js';

/** The waits of one request add up to this much at most, as Firecrawl allows. */
export const MAX_TOTAL_WAIT_MS = 60_000;

/**
 * An action the request cannot have, or one the page could not run (its selector matched
 * nothing): the caller's to fix, refused and never charged. `param` names the action by its index
 * (`actions.3.selector`).
 */
export class InvalidActionError extends UnservedValueError {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

/** The one selector check (the engine's), its refusal named by the action. */
function cssChecked(selector: string, param: string): void {
  try {
    assertValidSelector(selector);
  } catch (err) {
    if (err instanceof InvalidSelectorError) throw new InvalidActionError(param, err.message);
    throw err;
  }
}

/**
 * The caller's actions (a parsed JSON value, from a Firecrawl body or a Base64 parameter),
 * validated into what the engine runs: each one's shape, at most 50, their waits at most 60 s in
 * all and within the request's deadline, every selector CSS. Throws InvalidActionError naming the
 * first wrong one.
 */
export function validActions(raw: unknown, timeoutMs: number): BrowserAction[] {
  // Before the schema (which bounds them too): a long list is refused without parsing each item.
  if (Array.isArray(raw) && raw.length > MAX_ACTIONS) throw new InvalidActionError('actions', `at most ${MAX_ACTIONS} actions are allowed`);
  const parsed = browserActionsSchema.safeParse(raw);
  if (!parsed.success) {
    const [first] = parsed.error.issues;
    const at = ['actions', ...(first?.path ?? [])].join('.');
    throw new InvalidActionError(at, first?.message ?? 'not a list of actions');
  }
  const actions = parsed.data;
  let waits = 0;
  actions.forEach((action, i) => {
    if (action.type === 'wait') {
      if ((action.milliseconds === undefined) === (action.selector === undefined)) throw new InvalidActionError(`actions.${i}`, 'a wait takes either milliseconds or a selector');
      waits += action.milliseconds ?? 0;
    }
    if (action.type === 'press' && !knownKey(action.key)) throw new InvalidActionError(`actions.${i}.key`, `"${action.key}" is not a key press knows: one character, or a named key (Enter, Tab, Escape, ArrowDown…)`);
    if ('selector' in action && action.selector !== undefined) cssChecked(action.selector, `actions.${i}.selector`);
  });
  if (waits > MAX_TOTAL_WAIT_MS) throw new InvalidActionError('actions', `the waits add up to ${waits} ms: at most ${MAX_TOTAL_WAIT_MS} ms are allowed`);
  if (waits >= timeoutMs) throw new InvalidActionError('actions', `the waits add up to ${waits} ms, which leaves nothing of the ${timeoutMs} ms timeout`);
  return actions;
}

