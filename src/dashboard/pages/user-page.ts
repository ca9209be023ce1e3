import type { AccountView } from '../account-view.js';
import { html, type SafeHtml } from '../html.js';
import { allowedIpsSection, chartSections, requestsSection, summarySection } from './account-sections.js';
import { rotationFields } from './grace-select.js';
import { csrfField, layout, notice, type Viewer } from './layout.js';
import { deliveriesSection, jobsSection, webhookSecretSection, type WebhookView } from './webhook-sections.js';

function rotateSection(viewer: Viewer, formId: string | undefined): SafeHtml {
  if (formId === undefined) {
    return html`<section class="card" aria-labelledby="rotate-title">
  <h2 id="rotate-title">Rotate your key</h2>
  <p id="rotate-unavailable">This session was opened with a secret of this key that has been replaced since: it still works for API calls until its grace period ends, but it cannot change the key. Sign in with the key's current secret to rotate it.</p>
</section>`;
  }
  return html`<section class="card" aria-labelledby="rotate-title">
  <h2 id="rotate-title">Rotate your key</h2>
  <p>A new secret replaces this one, with the same balance, history and settings. It is shown once.</p>
  <form method="post" action="/dashboard/rotate">
    ${csrfField(viewer)}
    ${rotationFields(formId)}
    <button type="submit" id="rotate">Rotate key</button>
  </form>
</section>`;
}

/**
 * A user's own key: what it has and did this period, and its rotation (`formId` undefined: the
 * session stands on a replaced secret, and may not rotate).
 */
export function userPage(viewer: Viewer, view: AccountView, formId: string | undefined, webhooks: WebhookView, error?: string): SafeHtml {
  return layout(
    'Your key',
    viewer,
    html`<h1>Your key</h1>
${notice('error', error)}
${summarySection(view)}
${chartSections(view)}
${requestsSection(view)}
${jobsSection(webhooks.jobs)}
${webhookSecretSection(viewer, webhooks.secret, '/dashboard/webhook-secret/rotate', formId)}
${deliveriesSection(viewer, webhooks.deliveries, undefined)}
${allowedIpsSection(view)}
${rotateSection(viewer, formId)}`,
    { charts: true },
  );
}
