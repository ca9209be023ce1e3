import type { DeliveryRecord, KeyJobRecord } from '../../webhooks/webhook-ports.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, type Viewer } from './layout.js';

/** What a key page shows of its webhooks and jobs. */
export interface WebhookView {
  secret: string;
  deliveries: DeliveryRecord[];
  jobs: KeyJobRecord[];
}

const when = (ms: number | undefined) => (ms === undefined ? '–' : new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));

/** The signing secret, and its rotation (`rotateAction` undefined: this session may not rotate it). */
export function webhookSecretSection(viewer: Viewer, secret: string, rotateAction: string | undefined, formId: string | undefined): SafeHtml {
  return html`<section class="card" aria-labelledby="webhook-secret-title">
  <h2 id="webhook-secret-title">Webhook signing secret</h2>
  <p>Every webhook of this key's jobs is signed with it: <code>X-Firecrawl-Signature</code> keyed with the whole string, and the Standard Webhooks <code>webhook-signature</code> keyed with the bytes after <code>whsec_</code>.</p>
  <label for="webhook-secret">Secret</label>
  <input id="webhook-secret" type="text" readonly value="${secret}" spellcheck="false" autocomplete="off">
  ${
    rotateAction && formId
      ? html`<form method="post" action="${rotateAction}">
    ${csrfField(viewer)}
    <input type="hidden" name="form_id" value="${formId}">
    <p>A new secret signs every attempt from now on, retries of earlier events included.</p>
    <button type="submit" id="rotate-webhook-secret">Rotate webhook secret</button>
  </form>`
      : ''
  }
</section>`;
}

/** The key's jobs with their progress and credits. */
export function jobsSection(jobs: KeyJobRecord[]): SafeHtml {
  return html`<section class="card" aria-labelledby="jobs-title">
  <h2 id="jobs-title">Jobs</h2>
  ${
    jobs.length === 0
      ? html`<p id="no-jobs">No batch or crawl jobs yet.</p>`
      : html`<div class="table-scroll" tabindex="0" role="region" aria-labelledby="jobs-title"><table id="jobs">
    <thead><tr><th scope="col">Job</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Failed</th><th scope="col">Credits</th><th scope="col">Created</th><th scope="col">Results until</th><th scope="col">Results</th></tr></thead>
    <tbody>${jobs.map(
      (j) => html`<tr data-job-id="${j.id}"><td><code>${j.id}</code></td><td>${j.kind}</td><td>${j.status}</td><td><progress max="${Math.max(1, j.total)}" value="${j.doneCount + j.failedCount}"></progress> ${j.doneCount + j.failedCount} of ${j.total}</td><td>${j.failedCount}</td><td>${j.creditsUsed}</td><td>${when(j.createdAt)}</td><td>${when(j.expiresAt)}</td><td><code>GET /v2/${j.kind === 'crawl' ? 'crawl' : 'batch/scrape'}/${j.id}</code></td></tr>`,
    )}</tbody></table></div>`
  }
</section>`;
}

/** The key's last deliveries; the operator may replay each (`replayBase` + id + `/replay`). */
export function deliveriesSection(viewer: Viewer, deliveries: DeliveryRecord[], replayBase: string | undefined): SafeHtml {
  return html`<section class="card" aria-labelledby="deliveries-title">
  <h2 id="deliveries-title">Last webhook deliveries</h2>
  ${
    deliveries.length === 0
      ? html`<p id="no-deliveries">No webhook deliveries yet.</p>`
      : html`<div class="table-scroll" tabindex="0" role="region" aria-labelledby="deliveries-title"><table id="deliveries">
    <thead><tr><th scope="col">Event</th><th scope="col">Job</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Next try</th><th scope="col">Last answer</th><th scope="col">Created</th>${replayBase ? html`<th scope="col">Replay</th>` : ''}</tr></thead>
    <tbody>${deliveries.map(
      (d) => html`<tr data-webhook-id="${d.id}"><td>${d.event}</td><td><code>${d.jobId}</code></td><td>${d.state}</td><td>${d.attempts}</td><td>${when(d.nextAttemptAt)}</td><td>${d.lastStatus ?? '–'}${d.lastError ? html` <span class="error-text">${d.lastError}</span>` : ''}</td><td>${when(d.createdAt)}</td>${
        replayBase ? html`<td><form method="post" action="${replayBase}${d.id}/replay" class="inline">${csrfField(viewer)}<button type="submit">Replay</button></form></td>` : ''
      }</tr>`,
    )}</tbody></table></div>`
  }
</section>`;
}
