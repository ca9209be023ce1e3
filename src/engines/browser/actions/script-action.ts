import { CdpError } from '../cdp-session.js';
import { actionTime, type ActionPage } from './action-page.js';
import type { ActionOf } from './browser-action.js';
import { navigationWatch } from './navigation-watch.js';

/** A script's value is answered up to this many characters of JSON; a larger one is refused by name. */
export const MAX_SCRIPT_RETURN_CHARS = 1024 * 1024;
/**
 * A script's value nests arrays and objects this deep at most; a deeper one is refused by name.
 * A megabyte of `[` is a valid value a million deep, which every later step that walks the answer
 * (serialising it, storing it, a client parsing it) would have to recurse through.
 */
export const MAX_SCRIPT_RETURN_DEPTH = 1_000;

/** What a script gave back: its answer, and how many characters crossed from the page for it. */
export interface ScriptOutcome {
  returned: { type: string; value: unknown };
  /** The page's raw answer as it crossed (a page may pad its JSON: this is what it cost). */
  rawChars: number;
}
const GROUP = 'scrapegate-action-script';

/**
 * Runs in the page. The caller's script goes through an indirect eval, which gives what
 * Runtime.evaluate would (a statement list's last value, in the global scope); DevTools allows
 * code from strings while its own evaluation runs, so a page's CSP does not stop it. The value is
 * awaited, measured and made JSON here, and only one primitive string leaves the page: `json
 * <type> <JSON>`, `big <type> <characters>` (a string's: its length and quotes, before any escape), `none <type>` (nothing JSON can say) or `threw`.
 * Whatever the script returned or threw, however large, never crosses the DevTools connection, and
 * a string's length cannot be faked by the page's own objects. A page that replaced `eval` runs
 * the script through its own function, as it could tamper with anything else the script uses.
 */
const IN_PAGE = `async (source, cap) => {
  try {
    const value = await (0, eval)(source);
    const type = typeof value;
    if (type === 'undefined' || type === 'function' || type === 'symbol' || type === 'bigint') return 'none ' + type;
    if (type === 'string' && value.length > cap) return 'big string ' + (value.length + 2);
    let json;
    try { json = JSON.stringify(value); } catch { return 'none ' + type; }
    if (typeof json !== 'string') return 'none ' + type;
    if (json.length > cap) return 'big ' + type + ' ' + json.length;
    return 'json ' + (type === 'object' && Array.isArray(value) ? 'array' : type) + ' ' + json;
  } catch {
    return 'threw';
  }
}`;

/**
 * Evaluates the caller's script in the page's own world (it is there to act on the page) as
 * Firecrawl does, as an expression (a statement list's last value), awaiting a promise. Its value
 * is made JSON and measured in the browser before anything is transferred (IN_PAGE); a value past
 * the cap, a value JSON cannot say and a script that threw are answered as what they are, never as
 * the page's words (an exception's message may quote the caller's script).
 */
export async function executeJavascript(page: ActionPage, action: ActionOf<'executeJavascript'>): Promise<ScriptOutcome> {
  const time = Math.max(1, actionTime(page));
  const navigating = navigationWatch(page);
  try {
    const evaluated = await page.cdp.send<{ result: { value?: unknown }; exceptionDetails?: unknown }>(
      'Runtime.evaluate',
      {
        expression: `(${IN_PAGE})(${JSON.stringify(action.script)}, ${MAX_SCRIPT_RETURN_CHARS})`,
        awaitPromise: true,
        returnByValue: true,
        objectGroup: GROUP,
        userGesture: false,
      },
      time + 1_000,
    ).catch(async (err: unknown) => {
      if (!navigatedAway(err)) throw err;
      // The script took the page elsewhere: its value went with the document it ran in. The next
      // action acts on the new page once it has loaded (within the deadline).
      await navigating.settled();
      return undefined;
    });
    if (!evaluated) return { returned: { type: 'error', value: 'the page navigated while the script ran' }, rawChars: 0 };
    const said = evaluated.exceptionDetails ? undefined : evaluated.result.value;
    return typeof said === 'string' ? { returned: answerOf(said), rawChars: said.length } : { returned: threw(), rawChars: 0 };
  } finally {
    navigating.stop();
    page.cdp.post('Runtime.releaseObjectGroup', { objectGroup: GROUP });
  }
}

/**
 * Chromium's answer when the document an evaluation ran in was replaced before it finished (the
 * renderer ending, the connection closing and a timeout are other failures, and stay ones).
 */
function navigatedAway(err: unknown): boolean {
  return err instanceof CdpError && /navigated or closed|context was destroyed|Cannot find context/i.test(err.message);
}

/** What IN_PAGE said, as the action's result. */
export function answerOf(said: string): { type: string; value: unknown } {
  const [kind = '', type = 'object'] = said.split(' ', 2);
  const rest = said.slice(kind.length + type.length + 2);
  if (kind === 'json') {
    if (jsonDepth(rest) > MAX_SCRIPT_RETURN_DEPTH) return tooDeep();
    try {
      return { type, value: JSON.parse(rest) as unknown };
    } catch {
      // The page's own JSON.stringify said something that is not JSON.
      return { type, value: null };
    }
  }
  if (kind === 'big') return tooLarge(rest);
  if (kind === 'none') return { type, value: null };
  return threw();
}

function threw(): { type: string; value: unknown } {
  return { type: 'error', value: 'the script threw an exception' };
}

function tooLarge(chars: string): { type: string; value: unknown } {
  return { type: 'error', value: `the value is at least ${chars} characters of JSON: at most ${MAX_SCRIPT_RETURN_CHARS} are answered` };
}

function tooDeep(): { type: string; value: unknown } {
  return { type: 'error', value: `the value nests arrays or objects more than ${MAX_SCRIPT_RETURN_DEPTH} deep` };
}

/** How deep arrays and objects nest in JSON text, read without parsing it (strings skipped). */
export function jsonDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
