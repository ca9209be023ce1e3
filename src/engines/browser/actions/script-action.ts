import { actionTime, type ActionPage } from './action-page.js';
import type { ActionOf } from './browser-action.js';

/** A script's value is answered up to this many characters of JSON; a larger one is refused by name. */
export const MAX_SCRIPT_RETURN_CHARS = 1024 * 1024;
const GROUP = 'scrapegate-action-script';

interface RemoteObject {
  type: string;
  subtype?: string;
  value?: unknown;
  objectId?: string;
  unserializableValue?: string;
}

/**
 * Evaluates the caller's script in the page's own world (it is there to act on the page) as
 * Firecrawl does, as an expression (a statement list's last value), awaiting a promise. An object
 * is made JSON in the browser and measured there before it is transferred; a value past the cap,
 * a value JSON cannot say and a script that threw are answered as what they are, never as the
 * page's words (an exception's message may quote the caller's script).
 */
export async function executeJavascript(page: ActionPage, action: ActionOf<'executeJavascript'>): Promise<{ type: string; value: unknown }> {
  const time = Math.max(1, actionTime(page));
  try {
    const evaluated = await page.cdp.send<{ result: RemoteObject; exceptionDetails?: unknown }>(
      'Runtime.evaluate',
      { expression: action.script, awaitPromise: true, returnByValue: false, objectGroup: GROUP, userGesture: false },
      time + 1_000,
    );
    if (evaluated.exceptionDetails) return { type: 'error', value: 'the script threw an exception' };
    return await valueOf(page, evaluated.result, time);
  } finally {
    page.cdp.post('Runtime.releaseObjectGroup', { objectGroup: GROUP });
  }
}

async function valueOf(page: ActionPage, result: RemoteObject, time: number): Promise<{ type: string; value: unknown }> {
  if (result.type === 'undefined') return { type: 'undefined', value: null };
  if (result.unserializableValue !== undefined) return { type: result.type, value: null };
  if (!result.objectId) {
    if (typeof result.value === 'string' && result.value.length > MAX_SCRIPT_RETURN_CHARS) return tooLarge(result.value.length);
    return { type: result.type, value: result.value ?? null };
  }
  if (result.type === 'function' || result.type === 'symbol') return { type: result.type, value: null };
  const json = await page.cdp.send<{ result: { value?: { json?: string; tooLarge?: number } }; exceptionDetails?: unknown }>(
    'Runtime.callFunctionOn',
    {
      objectId: result.objectId,
      functionDeclaration: `function () { const s = JSON.stringify(this); if (typeof s !== 'string') return {}; if (s.length > ${MAX_SCRIPT_RETURN_CHARS}) return { tooLarge: s.length }; return { json: s }; }`,
      returnByValue: true,
    },
    time,
  );
  const made = json.exceptionDetails ? undefined : json.result.value;
  if (made?.tooLarge !== undefined) return tooLarge(made.tooLarge);
  if (typeof made?.json !== 'string') return { type: 'object', value: null };
  try {
    return { type: result.subtype === 'array' ? 'array' : 'object', value: JSON.parse(made.json) as unknown };
  } catch {
    // The page's own JSON.stringify said something that is not JSON.
    return { type: 'object', value: null };
  }
}

function tooLarge(chars: number): { type: string; value: unknown } {
  return { type: 'error', value: `the value is ${chars} characters of JSON: at most ${MAX_SCRIPT_RETURN_CHARS} are answered` };
}
