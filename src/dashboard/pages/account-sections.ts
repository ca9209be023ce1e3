import { ENGINES, OUTCOMES, type AccountView } from '../account-view.js';
import { html, jsonBlock, type SafeHtml } from '../html.js';

const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
const number = (n: number) => n.toLocaleString('en-US');

export interface ChartSpec {
  canvas: string;
  kind: 'line' | 'bar' | 'doughnut';
  label: string;
  labels: string[];
  values: number[];
}

/** A chart and the same figures as a table: the canvas is drawn by dashboard.js, the table serves everyone else. */
function chart(spec: ChartSpec, title: string, summary: string): SafeHtml {
  return html`<section class="card chart" aria-labelledby="${spec.canvas}-title">
  <h2 id="${spec.canvas}-title">${title}</h2>
  <div class="canvas-box"><canvas id="${spec.canvas}" role="img" aria-label="${summary}" data-points="${spec.values.length}"></canvas></div>
  <details><summary>${title} as a table</summary>
    <table><thead><tr><th scope="col">${spec.label === 'Credits' ? 'Day' : 'Kind'}</th><th scope="col">${spec.label}</th></tr></thead>
    <tbody>${spec.labels.map((l, i) => html`<tr><td>${l}</td><td>${number(spec.values[i])}</td></tr>`)}</tbody></table>
  </details>
</section>`;
}

export function chartsOf(view: AccountView): ChartSpec[] {
  return [
    { canvas: 'credits-chart', kind: 'line', label: 'Credits', labels: view.creditsByDay.map((d) => d.day), values: view.creditsByDay.map((d) => d.credits) },
    { canvas: 'outcomes-chart', kind: 'bar', label: 'Requests', labels: [...OUTCOMES], values: OUTCOMES.map((o) => view.outcomes[o]) },
    { canvas: 'engines-chart', kind: 'doughnut', label: 'Requests', labels: [...ENGINES], values: ENGINES.map((e) => view.engines[e]) },
  ];
}

/** Plan, period, credits and limits; each figure has an id the browser test reads. */
export function summarySection(view: AccountView): SafeHtml {
  const k = view.key;
  return html`<section class="card" aria-labelledby="summary-title">
  <h2 id="summary-title">Plan and credits</h2>
  <dl class="figures">
    <div><dt>Plan</dt><dd id="plan-name">${k.plan}</dd></div>
    <div><dt>Period</dt><dd><span id="period-start">${when(k.period_start)}</span> to <span id="period-end">${when(k.period_end)}</span></dd></div>
    <div><dt>Credits remaining</dt><dd><span id="credits-remaining">${k.credits_remaining}</span> of <span id="credits-total">${k.credits_total}</span></dd></div>
    <div><dt>Credits charged this period</dt><dd id="credits-charged">${view.creditsCharged}</dd></div>
    <div><dt>Requests since ${view.since}</dt><dd><span id="request-count">${view.requestCount}</span> and <span id="refused-count">${view.refusedCount}</span> refused</dd></div>
    <div><dt>Concurrent requests</dt><dd id="max-concurrency">${k.max_concurrency === null ? 'unlimited' : k.max_concurrency}</dd></div>
    <div><dt>Key</dt><dd><code id="key-prefix">${k.prefix}…</code>${k.revoked_at ? html` <strong class="revoked">revoked ${when(k.revoked_at)}</strong>` : ''}</dd></div>
  </dl>
</section>`;
}

export function chartSections(view: AccountView): SafeHtml {
  const [credits, outcomes, engines] = chartsOf(view);
  return html`<div class="charts">
${chart(credits, 'Credits per day', `Credits charged on each UTC day since ${view.since}, ${credits.values.length} days`)}
${chart(outcomes, 'Requests by outcome', `Requests and refusals since ${view.since} by the status answered: ${outcomes.labels.map((l, i) => `${l}: ${outcomes.values[i]}`).join(', ')}`)}
${chart(engines, 'Requests by engine', `Requests since ${view.since} by engine: plain ${view.engines.plain}, browser ${view.engines.browser}`)}
</div>
${jsonBlock('dashboard-charts', chartsOf(view))}`;
}

export function allowedIpsSection(view: AccountView): SafeHtml {
  const ips = view.key.allowed_ips;
  return html`<section class="card" aria-labelledby="ips-title">
  <h2 id="ips-title">Allowed IP addresses</h2>
  ${ips.length === 0 ? html`<p id="allowed-ips">Anywhere: this key has no IP restriction.</p>` : html`<ul id="allowed-ips">${ips.map((ip) => html`<li><code>${ip}</code></li>`)}</ul>`}
</section>`;
}

export function requestsSection(view: AccountView): SafeHtml {
  return html`<section class="card" aria-labelledby="requests-title">
  <h2 id="requests-title">Last ${view.requests.length === 100 ? '100 ' : ''}requests</h2>
  ${
    view.requests.length === 0
      ? html`<p>No requests yet.</p>`
      : html`<div class="table-scroll" tabindex="0" role="region" aria-labelledby="requests-title"><table id="requests">
    <thead><tr><th scope="col">Time</th><th scope="col">Host</th><th scope="col">Engine</th><th scope="col">Proxy</th><th scope="col">Status</th><th scope="col">Page status</th><th scope="col">Cost</th><th scope="col">Duration</th></tr></thead>
    <tbody>${view.requests.map(
      (r) => html`<tr data-request-id="${r.request_id}"><td>${when(r.started_at)}</td><td>${r.target_host}</td><td>${r.engine}</td><td>${r.proxy_type}${r.proxy_country ? ` (${r.proxy_country})` : ''}</td><td>${r.status ?? 'in flight'}</td><td>${r.page_status ?? '–'}</td><td>${r.outcome === 'charged' ? r.cost : 0}</td><td>${r.duration_ms === null ? '–' : `${r.duration_ms} ms`}</td></tr>`,
    )}</tbody></table></div>`
  }
</section>`;
}
