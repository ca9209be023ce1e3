import type { KeyRecord } from '../../accounts/key-record.js';
import { html, type SafeHtml } from '../html.js';
import { layout, type Viewer } from './layout.js';

/**
 * The one time a secret is shown: in the answer to the POST that made it (never a redirect, a
 * URL or a later page), which no cache keeps (Cache-Control: no-store on every dashboard page).
 */
export function secretPage(viewer: Viewer, heading: string, key: string, record: KeyRecord, back: string): SafeHtml {
  return layout(
    heading,
    viewer,
    html`<h1>${heading}</h1>
<section class="card" aria-labelledby="secret-title">
  <h2 id="secret-title">The new secret</h2>
  <p>Copy it now: it is not shown again, and cannot be recovered.</p>
  <label for="new-secret">Secret of key ${record.prefix}…</label>
  <input id="new-secret" type="text" readonly value="${key}" spellcheck="false" autocomplete="off">
  <p><a href="${back}">Continue</a></p>
</section>`,
  );
}
