import type { components } from '../../generated/admin-types.js';
import type { Catalog } from '../../config/catalog.js';
import type { AccountView } from '../account-view.js';
import { html, type SafeHtml } from '../html.js';
import { allowedIpsSection, chartSections, requestsSection, summarySection } from './account-sections.js';
import { csrfField, layout, notice, type Viewer } from './layout.js';
import { rotationFields } from './grace-select.js';
import { deliveriesSection, jobsSection, webhookSecretSection, type WebhookView } from './webhook-sections.js';

type AuditEntry = components['schemas']['AuditEntry'];

function changeForm(viewer: Viewer, catalog: Catalog, view: AccountView): SafeHtml {
  const k = view.key;
  return html`<section class="card" aria-labelledby="change-title">
  <h2 id="change-title">Change the key</h2>
  <form method="post" action="/dashboard/keys/${k.id}" class="grid-form">
    ${csrfField(viewer)}
    <div><label for="label">Label</label><input id="label" name="label" maxlength="200" value="${k.label ?? ''}"></div>
    <div><label for="plan">Plan</label><select id="plan" name="plan">${catalog.plans.map((p) => html`<option value="${p.name}"${p.name === k.plan ? html` selected` : ''}>${p.name}</option>`)}</select></div>
    <div><label for="max_concurrency">Concurrent requests (empty: unlimited; a new plan brings its own unless this changes too)</label><input id="max_concurrency" name="max_concurrency" type="number" min="1" inputmode="numeric" value="${k.max_concurrency ?? ''}"></div>
    <div><label for="add_credits">Add credits</label><input id="add_credits" name="add_credits" type="number" min="1" inputmode="numeric"></div>
    <div><label for="credits_remaining">Or set the credits remaining to</label><input id="credits_remaining" name="credits_remaining" type="number" min="0" inputmode="numeric"></div>
    <div class="wide"><label for="allowed_ips">Allowed IP addresses and ranges, one per line (empty: anywhere)</label><textarea id="allowed_ips" name="allowed_ips" rows="3">${k.allowed_ips.join('\n')}</textarea></div>
    <button type="submit" id="save-key">Save changes</button>
  </form>
</section>`;
}

function dangerZone(viewer: Viewer, view: AccountView, formId: string): SafeHtml {
  const k = view.key;
  if (k.revoked_at) return html``;
  return html`<section class="card" aria-labelledby="danger-title">
  <h2 id="danger-title">Rotate or revoke</h2>
  <form method="post" action="/dashboard/keys/${k.id}/rotate">
    ${csrfField(viewer)}
    ${rotationFields(formId)}
    <button type="submit" id="rotate">Rotate key</button>
  </form>
  <form method="post" action="/dashboard/keys/${k.id}/revoke">
    ${csrfField(viewer)}
    <p>Revoking ends every use of the key at once, on every instance. It cannot be undone.</p>
    <button type="submit" id="revoke" class="danger">Revoke key</button>
  </form>
</section>`;
}

function auditSection(entries: AuditEntry[]): SafeHtml {
  const state = (s: AuditEntry['before']) => (s ? Object.entries(s).map(([name, value]) => `${name}: ${JSON.stringify(value)}`).join(', ') : '–');
  return html`<section class="card" aria-labelledby="audit-title">
  <h2 id="audit-title">Changes</h2>
  <div class="table-scroll" tabindex="0" role="region" aria-labelledby="audit-title"><table id="audit">
  <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
  <tbody>${entries.map((e) => html`<tr><td>${e.at.replace('T', ' ').slice(0, 19)}</td><td>${e.actor}</td><td>${e.action}</td><td>${state(e.before)}</td><td>${state(e.after)}</td></tr>`)}</tbody>
  </table></div>
</section>`;
}

/** One key, as the operator sees and changes it. */
export function keyPage(viewer: Viewer, catalog: Catalog, view: AccountView, audit: AuditEntry[], formId: string, webhooks: WebhookView, error?: string): SafeHtml {
  const id = view.key.id;
  return layout(
    `Key ${view.key.prefix}`,
    viewer,
    html`<p><a href="/dashboard">All keys</a></p>
<h1>Key <code>${view.key.prefix}…</code>${view.key.label ? html` <span class="label">${view.key.label}</span>` : ''}</h1>
${notice('error', error)}
${summarySection(view)}
${changeForm(viewer, catalog, view)}
${dangerZone(viewer, view, formId)}
${chartSections(view)}
${requestsSection(view)}
${jobsSection(webhooks.jobs)}
${webhookSecretSection(viewer, webhooks.secret, `/dashboard/keys/${id}/webhook-secret/rotate`, formId)}
${deliveriesSection(viewer, webhooks.deliveries, `/dashboard/keys/${id}/webhook-deliveries/`)}
${allowedIpsSection(view)}
${auditSection(audit)}`,
    { charts: true },
  );
}
