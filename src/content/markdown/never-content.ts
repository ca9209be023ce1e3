import type { ElementNode } from './dom/nodes.js';

/**
 * Elements removed with their content in every mode: code, styling, embedded documents and
 * drawings, metadata that strays into <body>, and form controls (a form's labels and legends
 * stay). A checkbox stays only for the task-list rule, which turns it into "[ ]" or "[x]".
 */
export const NEVER_CONTENT: ReadonlySet<string> = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'iframe', 'frame', 'frameset', 'canvas',
  'object', 'embed', 'input', 'select', 'textarea', 'button', 'option', 'optgroup', 'datalist',
  'title', 'meta', 'link', 'base',
]);

export function isNeverContent(element: ElementNode): boolean {
  return NEVER_CONTENT.has(element.localName) && !isCheckbox(element);
}

function isCheckbox(element: ElementNode): boolean {
  return element.localName === 'input' && element.getAttribute('type')?.trim().toLowerCase() === 'checkbox';
}
