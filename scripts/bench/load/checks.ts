// The checks that must hold after a load run: no 5xx, every answer one its request allows, credits
// charged equal to the costs the 200s reported, no leases, no Chromium beyond the pool, pool memory
// near its warm-up figure, nothing of a session outliving the server. None of them judges speed.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KeyFigures } from './key-figures.js';
import type { MemoryFigures } from './pool-memory.js';
import { membersOf } from '../../../test/helpers/chromium-processes.js';
import type { Outcome } from './send.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** What the checks made once the load is done, before the server stops, are made from. */
export interface AfterLoad {
  serverPid: number;
  upAfterLoad: boolean;
  planned: number;
  sent: number;
  poolSize: number;
  outcomes: Outcome[];
  keys: KeyFigures[];
  warm: MemoryFigures;
  end: MemoryFigures;
  maxBrowsers: number;
  maxBrowsersSingleReading: number;
  /** Processes left in the groups of sessions retired during the run. */
  leftInRetired: number;
  retiredGroups: number;
}

function examples(outcomes: Outcome[]): string {
  if (outcomes.length === 0) return '';
  return '\n      ' + outcomes.slice(0, 5).map((o) => `#${o.request.id} ${o.request.api} ${o.request.engine} ${o.request.target} key=${o.request.key}: ${o.problem ?? o.status}`).join('\n      ');
}

export function afterLoadChecks(a: AfterLoad): Check[] {
  const checks: Check[] = [];
  checks.push({ name: 'the server stayed up through the run', ok: a.upAfterLoad, detail: a.upAfterLoad ? `pid ${a.serverPid}` : `pid ${a.serverPid} ended; its last output is above` });
  const fiveXx = a.outcomes.filter((o) => o.status >= 500);
  checks.push({ name: 'no 5xx from scrapegate', ok: fiveXx.length === 0, detail: `${fiveXx.length} of ${a.outcomes.length}` + examples(fiveXx) });
  const unanswered = a.outcomes.filter((o) => o.status === 0);
  checks.push({ name: 'every request answered within its deadline + 15 s', ok: unanswered.length === 0 && a.sent === a.planned, detail: `${a.sent}/${a.planned} sent, ${unanswered.length} unanswered` + examples(unanswered) });
  const wrong = a.outcomes.filter((o) => o.status !== 0 && o.problem !== undefined);
  checks.push({ name: 'every answer is one its request allows (status, cost, target status, content)', ok: wrong.length === 0, detail: `${wrong.length} not` + examples(wrong) });
  const unbalanced = a.keys.filter((k) => k.before - k.after !== k.costOfOks || k.after < 0);
  checks.push({
    name: 'credits charged = Σ Svc-credits-cost of the 200s, per key',
    ok: unbalanced.length === 0,
    detail: a.keys.map((k) => `${k.name} ${k.before - k.after}/${k.costOfOks}`).join(', '),
  });
  const leases = a.keys.reduce((s, k) => s + k.leases, 0);
  checks.push({ name: 'no concurrency leases left', ok: leases === 0, detail: `${leases}` });
  checks.push({
    name: 'no Chromium beyond the pool',
    ok: a.end.browsers <= a.poolSize && a.maxBrowsers <= a.poolSize && a.leftInRetired === 0,
    detail: `${a.end.browsers} browsers at the end, at most ${a.maxBrowsers} during the run (${a.maxBrowsersSingleReading} in a single reading), pool ${a.poolSize}; ${a.leftInRetired} processes left of ${a.retiredGroups} retired sessions`,
  });
  const ratio = a.end.pssKb / a.warm.pssKb;
  checks.push({
    name: 'pool memory within 20% of the warm-up figure',
    ok: a.warm.pssKb > 0 && Math.abs(ratio - 1) <= 0.2,
    detail: `PSS ${(a.end.pssKb / 1024).toFixed(0)} MB after / ${(a.warm.pssKb / 1024).toFixed(0)} MB warm = ${ratio.toFixed(2)}`,
  });
  return checks;
}

/** The pool quits every session on SIGTERM: nothing of any session may outlive the server. */
export async function sessionsGoneCheck(groups: Set<number>): Promise<Check> {
  let survivors = membersOf(groups);
  for (let i = 0; i < 20 && survivors.length > 0; i++) {
    await sleep(250);
    survivors = membersOf(groups);
  }
  return { name: 'no session process outlives the server', ok: survivors.length === 0, detail: `${survivors.length} left of ${groups.size} session groups` };
}

export function timeCapCheck(started: number, deadline: number, timeCapMs: number): Check {
  return { name: 'finished within the time cap', ok: Date.now() <= deadline, detail: `${((Date.now() - started) / 1000).toFixed(0)} s of ${(timeCapMs / 1000).toFixed(0)} s` };
}
