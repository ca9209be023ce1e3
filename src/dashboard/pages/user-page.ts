import type { AccountView } from '../account-view.js';
import { html, type SafeHtml } from '../html.js';
import { allowedIpsSection, chartSections, requestsSection, summarySection } from './account-sections.js';
import { rotationFields } from './grace-select.js';
import { csrfField, layout, notice, type Viewer } from './layout.js';

/** A user's own key: what it has and did this period, and its rotation. */
export function userPage(viewer: Viewer, view: AccountView, formId: string, error?: string): SafeHtml {
  return layout(
    'Your key',
    viewer,
    html`<h1>Your key</h1>
${notice('error', error)}
${summarySection(view)}
${chartSections(view)}
${requestsSection(view)}
${allowedIpsSection(view)}
<section class="card" aria-labelledby="rotate-title">
  <h2 id="rotate-title">Rotate your key</h2>
  <p>A new secret replaces this one, with the same balance, history and settings. It is shown once.</p>
  <form method="post" action="/dashboard/rotate">
    ${csrfField(viewer)}
    ${rotationFields(formId)}
    <button type="submit" id="rotate">Rotate key</button>
  </form>
</section>`,
    { charts: true },
  );
}
