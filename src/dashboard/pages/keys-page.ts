import type { KeyRecord } from '../../accounts/key-record.js';
import type { Catalog } from '../../config/catalog.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, layout, notice, type Viewer } from './layout.js';

export interface KeysQuery {
  q?: string;
  plan?: string;
  /** 'active', 'revoked', or all. */
  status?: string;
  cursor?: string;
}

const selected = (on: boolean) => (on ? html` selected` : '');

/**
 * Posted, not a GET: an operator who pastes a whole secret into the search box must not find it
 * in a URL, the browser's history or the access log.
 */
function filters(viewer: Viewer, catalog: Catalog, query: KeysQuery): SafeHtml {
  return html`<form method="post" action="/dashboard/search" class="filters" role="search" aria-label="Keys">
  ${csrfField(viewer)}
  <div><label for="q">Label or key prefix</label><input id="q" name="q" type="search" value="${query.q ?? ''}" maxlength="100"></div>
  <div><label for="plan-filter">Plan</label><select id="plan-filter" name="plan"><option value="">Any plan</option>${catalog.plans.map((p) => html`<option value="${p.name}"${selected(query.plan === p.name)}>${p.name}</option>`)}</select></div>
  <div><label for="status-filter">Status</label><select id="status-filter" name="status">
    <option value="">Any</option><option value="active"${selected(query.status === 'active')}>Active</option><option value="revoked"${selected(query.status === 'revoked')}>Revoked</option></select></div>
  <button type="submit">Search</button>
</form>`;
}

function keysTable(items: KeyRecord[]): SafeHtml {
  if (items.length === 0) return html`<p id="no-keys">No key matches.</p>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-labelledby="keys-title"><table id="keys">
  <thead><tr><th scope="col">Key</th><th scope="col">Label</th><th scope="col">Plan</th><th scope="col">Credits remaining</th><th scope="col">Created</th><th scope="col">Status</th></tr></thead>
  <tbody>${items.map(
    (k) => html`<tr data-key-id="${k.id}"><td><a href="/dashboard/keys/${k.id}"><code>${k.prefix}…</code></a></td><td>${k.label ?? ''}</td><td>${k.plan}</td><td>${k.credits_remaining} of ${k.credits_total}</td><td>${k.created_at.slice(0, 10)}</td><td>${k.revoked_at ? 'revoked' : 'active'}</td></tr>`,
  )}</tbody></table></div>`;
}

/** The fields a key is made with, as the admin API's POST /admin/v1/keys takes them. */
function createForm(viewer: Viewer, catalog: Catalog, formId: string): SafeHtml {
  return html`<section class="card" aria-labelledby="create-title">
  <h2 id="create-title">Create a key</h2>
  <form method="post" action="/dashboard/keys" class="grid-form">
    ${csrfField(viewer)}
    <input type="hidden" name="form_id" value="${formId}">
    <div><label for="new-plan">Plan</label><select id="new-plan" name="plan" required>${catalog.plans.map((p) => html`<option value="${p.name}">${p.name} (${p.credits} credits)</option>`)}</select></div>
    <div><label for="new-label">Label</label><input id="new-label" name="label" maxlength="200"></div>
    <div><label for="new-credits">Credits (empty: the plan's)</label><input id="new-credits" name="credits" type="number" min="0" inputmode="numeric"></div>
    <div><label for="new-concurrency">Concurrent requests (empty: the plan's)</label><input id="new-concurrency" name="max_concurrency" type="number" min="1" inputmode="numeric"></div>
    <div class="wide"><label for="new-ips">Allowed IP addresses and ranges, one per line (empty: anywhere)</label><textarea id="new-ips" name="allowed_ips" rows="2"></textarea></div>
    <button type="submit" id="create-key">Create key</button>
  </form>
</section>`;
}

/** The operator's home: every key, searchable, and a new one. */
export function keysPage(
  viewer: Viewer, catalog: Catalog, query: KeysQuery, page: { items: KeyRecord[]; next_cursor: string | null }, formId: string, error?: string,
): SafeHtml {
  const older = { q: query.q, plan: query.plan, status: query.status, cursor: page.next_cursor };
  return layout(
    'Keys',
    viewer,
    html`<h1>Keys</h1>
${notice('error', error)}
${createForm(viewer, catalog, formId)}
<section class="card" aria-labelledby="keys-title">
  <h2 id="keys-title">All keys</h2>
  ${filters(viewer, catalog, query)}
  ${keysTable(page.items)}
  ${
    page.next_cursor
      ? html`<form method="post" action="/dashboard/search">${csrfField(viewer)}${Object.entries(older).map(([name, value]) => (value ? html`<input type="hidden" name="${name}" value="${value}">` : ''))}<button type="submit" id="older-keys">Older keys</button></form>`
      : ''
  }
</section>`,
  );
}
