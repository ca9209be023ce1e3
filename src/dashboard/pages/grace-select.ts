import { OWN_ROTATION_GRACE_SECONDS } from '../../accounts/key-admin.js';
import { html, type SafeHtml } from '../html.js';

const GRACE_TEXT = new Map<number, string>([
  [0, 'Stop it at once'],
  [3600, 'Keep it working for 1 hour'],
  [86_400, 'Keep it working for 24 hours'],
]);

/** The choices of how long a rotated secret keeps working, in seconds: those a user's rotation accepts (key-admin.ts). */
const GRACE_CHOICES: Array<[number, string]> = OWN_ROTATION_GRACE_SECONDS.map((s) => [s, GRACE_TEXT.get(s) ?? `Keep it working for ${s} seconds`]);

/** The rotation form's fields: the grace, and the form's one-use id (a reload does not rotate twice). */
export function rotationFields(formId: string): SafeHtml {
  return html`<input type="hidden" name="form_id" value="${formId}">
  <label for="grace_seconds">The current key</label>
  <select id="grace_seconds" name="grace_seconds">${GRACE_CHOICES.map(([s, text]) => html`<option value="${s}">${text}</option>`)}</select>`;
}
