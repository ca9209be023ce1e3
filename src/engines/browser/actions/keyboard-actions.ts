import type { ActionPage } from './action-page.js';
import type { ActionOf } from './browser-action.js';

interface KeyDef {
  code: string;
  keyCode: number;
  text?: string;
}

/** The named keys `press` knows (DOM key names, as Firecrawl takes them); any single character is one too. */
export const NAMED_KEYS: Readonly<Record<string, KeyDef>> = {
  Enter: { code: 'Enter', keyCode: 13, text: '\r' },
  Tab: { code: 'Tab', keyCode: 9 },
  Escape: { code: 'Escape', keyCode: 27 },
  Backspace: { code: 'Backspace', keyCode: 8 },
  Delete: { code: 'Delete', keyCode: 46 },
  Space: { code: 'Space', keyCode: 32, text: ' ' },
  ArrowUp: { code: 'ArrowUp', keyCode: 38 },
  ArrowDown: { code: 'ArrowDown', keyCode: 40 },
  ArrowLeft: { code: 'ArrowLeft', keyCode: 37 },
  ArrowRight: { code: 'ArrowRight', keyCode: 39 },
  PageUp: { code: 'PageUp', keyCode: 33 },
  PageDown: { code: 'PageDown', keyCode: 34 },
  Home: { code: 'Home', keyCode: 36 },
  End: { code: 'End', keyCode: 35 },
};

/** Whether `press` knows the key. */
export function knownKey(key: string): boolean {
  return Object.hasOwn(NAMED_KEYS, key) || [...key].length === 1;
}

function definition(key: string): KeyDef & { key: string } {
  const named = NAMED_KEYS[key];
  if (named) return { key: key === 'Space' ? ' ' : key, ...named };
  const upper = key.toUpperCase();
  const code = /^[A-Z]$/.test(upper) ? `Key${upper}` : /^[0-9]$/.test(key) ? `Digit${key}` : '';
  return { key, code, keyCode: upper.charCodeAt(0), text: key };
}

/** Types the text into the element that has the focus (a click on a field gives it the focus), as one input. */
export async function write(page: ActionPage, action: ActionOf<'write'>): Promise<void> {
  await page.cdp.send('Input.insertText', { text: action.text });
}

/** Presses and releases one key, as the keyboard would: Enter submits the form a field is in. */
export async function press(page: ActionPage, action: ActionOf<'press'>): Promise<void> {
  const k = definition(action.key);
  const common = { key: k.key, code: k.code, windowsVirtualKeyCode: k.keyCode, nativeVirtualKeyCode: k.keyCode };
  await page.cdp.send('Input.dispatchKeyEvent', { type: k.text ? 'keyDown' : 'rawKeyDown', ...common, ...(k.text ? { text: k.text, unmodifiedText: k.text } : {}) });
  await page.cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...common });
}
