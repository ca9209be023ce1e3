import { actionTime, type ActionPage } from './action-page.js';
import type { ActionOf } from './browser-action.js';

/** A script's value is answered up to this many characters of JSON; a larger one is refused by name. */
export const MAX_SCRIPT_RETURN_CHARS = 1024 * 1024;
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
export async function executeJavascript(page: ActionPage, action: ActionOf<'executeJavascript'>): Promise<{ type: string; value: unknown }> {
  const time = Math.max(1, actionTime(page));
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
    );
    const said = evaluated.exceptionDetails ? undefined : evaluated.result.value;
    return typeof said === 'string' ? answerOf(said) : threw();
  } finally {
    page.cdp.post('Runtime.releaseObjectGroup', { objectGroup: GROUP });
  }
}

/** What IN_PAGE said, as the action's result. */
export function answerOf(said: string): { type: string; value: unknown } {
  const [kind = '', type = 'object'] = said.split(' ', 2);
  const rest = said.slice(kind.length + type.length + 2);
  if (kind === 'json') {
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
