// Each key's credits before and after the run, beside Σ Svc-credits-cost of its 200s, and the
// concurrency leases it still holds: the figures the credit and lease checks are made from.
import type { Environment } from './environment.js';
import { KEY_PLANS, type KeyName } from './plan.js';
import type { Outcome } from './send.js';

export interface KeyFigures {
  name: KeyName;
  plan: string;
  requests: number;
  ok: number;
  /** Σ Svc-credits-cost over its 200s. */
  costOfOks: number;
  before: number;
  after: number;
  leases: number;
}

type KeyStore = Pick<Environment, 'keys' | 'store'>;

/** The credits of every key the store knows (all but `bogus`), read before the first request. */
export async function creditsBefore(env: KeyStore): Promise<Map<KeyName, number>> {
  const before = new Map<KeyName, number>();
  for (const [name, key] of env.keys) if (name !== 'bogus') before.set(name, await env.store.remaining(key));
  return before;
}

export async function keyFigures(env: KeyStore, outcomes: Outcome[], before: Map<KeyName, number>): Promise<KeyFigures[]> {
  const keys: KeyFigures[] = [];
  for (const [name, key] of env.keys) {
    if (name === 'bogus') continue;
    const mine = outcomes.filter((o) => o.request.key === name);
    const oks = mine.filter((o) => o.status === 200);
    keys.push({
      name,
      plan: KEY_PLANS[name].planName,
      requests: mine.length,
      ok: oks.length,
      costOfOks: oks.reduce((s, o) => s + (o.cost ?? 0), 0),
      before: before.get(name) ?? 0,
      after: await env.store.remaining(key),
      leases: await env.store.leasesOf(key),
    });
  }
  return keys;
}
