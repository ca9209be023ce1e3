import { latency } from './latency.js';
import type { LoadReport } from './run.js';
import type { Outcome } from './send.js';

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

function histogram(outcomes: Outcome[]): string {
  const counts = new Map<number, number>();
  for (const o of outcomes) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
  return [...counts.entries()].sort(([a], [b]) => a - b).map(([status, n]) => `${status === 0 ? 'none' : status}: ${n}`).join('  ');
}

/** The figures of a run and its checks, as printed by the bench and the test. */
export function formatReport(r: LoadReport): string {
  const mixed = r.outcomes.filter((o) => o.request.id >= 0);
  const warmups = r.outcomes.length - mixed.length;
  const lines: string[] = [];
  const o = r.options;
  lines.push(`load run on ${r.database}: ${mixed.length} mixed requests (+${warmups} warm-up renders), concurrency ${o.concurrency}, browser pool ${o.poolSize}` +
    `${o.maxPages === undefined ? '' : ` (BROWSER_MAX_PAGES ${o.maxPages})`}, browser share ${Math.round(o.browserShare * 100)}%, seed ${o.seed}`);
  lines.push(`  ${(r.loadMs / 1000).toFixed(1)} s for the mixed requests: ${((mixed.length / r.loadMs) * 1000).toFixed(1)} req/s; whole run ${(r.wallMs / 1000).toFixed(1)} s`);
  lines.push(`  statuses: ${histogram(mixed)}`);
  const byTarget = new Map<string, Outcome[]>();
  for (const x of mixed) {
    const k = `${x.request.engine} ${x.request.target}`;
    byTarget.set(k, [...(byTarget.get(k) ?? []), x]);
  }
  for (const [k, xs] of [...byTarget.entries()].sort(([a], [b]) => a.localeCompare(b))) lines.push(`    ${k.padEnd(20)} ${String(xs.length).padStart(5)}   ${histogram(xs)}`);
  for (const engine of ['plain', 'browser'] as const) {
    const l = latency(r.outcomes, engine);
    lines.push(`  latency ${engine.padEnd(7)} n=${String(l.n).padStart(5)}  p50 ${l.p50.toFixed(0).padStart(5)} ms  p95 ${l.p95.toFixed(0).padStart(5)} ms`);
  }
  const charged = r.keys.reduce((s, k) => s + (k.before - k.after), 0);
  const expected = r.keys.reduce((s, k) => s + k.costOfOks, 0);
  lines.push(`  credits: charged ${charged}, Σ Svc-credits-cost of the 200s ${expected}, the server's access log ${r.accessLogCost}`);
  for (const k of r.keys) {
    lines.push(`    ${k.name.padEnd(8)} ${k.plan.padEnd(10)} ${String(k.requests).padStart(5)} requests ${String(k.ok).padStart(5)} × 200   charged ${String(k.before - k.after).padStart(6)}   Σ cost ${String(k.costOfOks).padStart(6)}   left ${k.after}   leases ${k.leases}`);
  }
  lines.push(`  leases left: ${r.keys.reduce((s, k) => s + k.leases, 0)}`);
  lines.push(`  Chromium: ${r.end.browsers} browsers in ${r.end.processes} session processes at the end (pool ${o.poolSize}), at most ${r.maxBrowsersDuringRun} during the run (${r.maxBrowsersSingleReading} in a single reading); ` +
    `${r.sessionGroupsSeen} sessions seen, ${r.retiredSessions} retired and replaced`);
  lines.push(`  pool memory: PSS ${mb(r.warm.pssKb)} after warm-up, ${mb(r.end.pssKb)} at the end = ${(r.end.pssKb / r.warm.pssKb).toFixed(2)}` +
    ` (private ${mb(r.warm.privateKb)} → ${mb(r.end.privateKb)})`);
  if (r.serverErrorLines.length > 0) {
    lines.push(`  server error log lines: ${r.serverErrorLines.length}`);
    for (const l of r.serverErrorLines.slice(0, 3)) lines.push(`    ${l}`);
  }
  if (r.serverOutputTail.length > 0) {
    lines.push('  the server ended during the run; its last output:');
    for (const l of r.serverOutputTail) lines.push(`    ${l}`);
  }
  lines.push('  checks:');
  for (const c of r.checks) lines.push(`    ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
  return lines.join('\n');
}
