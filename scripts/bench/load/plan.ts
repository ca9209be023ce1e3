// The mixed requests of a load run: which endpoint, engine, target, key and proxy each one uses.
// Drawn from a seeded generator, so one seed always gives the same run. What each may be answered
// is in expectation.ts, how it is sent in http-call.ts.
import { pick, seededRandom, weighted } from './seeded-random.js';

export type Api = 'v1-get' | 'v1-post' | 'v2-get' | 'v2-post' | 'v2-put' | 'v2-delete' | 'extended-get' | 'extended-post';
export type Engine = 'plain' | 'browser';

/** What the target does with the request. */
export type TargetKind =
  | 'fast' // the default 2 KB page
  | 'slow' // answers after 0.5–2 s
  | 'target-500' // the target's own 500: still an outer 200
  | 'target-404' // the target's own 404: still an outer 200
  | 'not-a-wall' // a target's 403/429/503 or vendor-served page without a wall's markers: outer 200
  | 'echo' // method and body forwarded (v2 POST/PUT/DELETE)
  | 'js-page' // the browser renders scripts, an iframe, XHRs; waits for #late
  | 'raw-source' // return_page_source=true
  | 'walled' // an anti-bot wall for every proxy: 423, not charged
  | 'reset' // the target resets the connection: 404, not charged
  | 'refused'; // nothing listens: 404, not charged

export type KeyName = 'business' | 'startup' | 'free' | 'tight' | 'warmup' | 'bogus';
export type ProxyChoice = { type: 'datacenter' | 'residential'; country: string | undefined } | undefined;

/** The keys of a run: several plans; `tight` has few credits and runs out (403), `free` is capped at 1 (409). */
export const KEY_PLANS: Record<Exclude<KeyName, 'bogus'>, { planName: string; maxConcurrency: number | null; credits: (count: number) => number }> = {
  business: { planName: 'business', maxConcurrency: null, credits: () => 3_000_000 },
  startup: { planName: 'startup', maxConcurrency: null, credits: () => 500_000 },
  free: { planName: 'free', maxConcurrency: 1, credits: () => 10_000 },
  tight: { planName: 'enthusiast', maxConcurrency: null, credits: (count) => Math.max(40, Math.round(count / 3)) },
  warmup: { planName: 'business', maxConcurrency: null, credits: () => 1_000_000 },
};

export interface PlannedRequest {
  id: number;
  api: Api;
  engine: Engine;
  target: TargetKind;
  key: KeyName;
  proxy: ProxyChoice;
  /** 0.5–2 s for `slow`; the wall or non-wall fixture's name for `walled` and `not-a-wall`. */
  variant: string;
  returnText: boolean;
  /** v1: the key in the x-api-key header rather than a parameter. */
  keyInHeader: boolean;
}

interface Template {
  weight: number;
  api: Api;
  engine: Engine;
  target: TargetKind;
}

// v1 has no `timeout` (60 s) and no `block_resource`: it is never sent to targets that fail slowly
// (reset, refused) nor, in the browser, to wall pages (they name vendor hosts: only BLOCK_ALL keeps
// a render on loopback).
const PLAIN: Template[] = [
  { weight: 20, api: 'v2-get', engine: 'plain', target: 'fast' },
  { weight: 6, api: 'v2-get', engine: 'plain', target: 'slow' },
  { weight: 3, api: 'v2-get', engine: 'plain', target: 'target-500' },
  { weight: 3, api: 'v2-get', engine: 'plain', target: 'target-404' },
  { weight: 3, api: 'v2-get', engine: 'plain', target: 'not-a-wall' },
  { weight: 3, api: 'v2-get', engine: 'plain', target: 'walled' },
  { weight: 1.5, api: 'v2-get', engine: 'plain', target: 'reset' },
  { weight: 1.5, api: 'v2-get', engine: 'plain', target: 'refused' },
  { weight: 4, api: 'v2-post', engine: 'plain', target: 'echo' },
  { weight: 3, api: 'v2-put', engine: 'plain', target: 'echo' },
  { weight: 3, api: 'v2-delete', engine: 'plain', target: 'echo' },
  { weight: 6, api: 'extended-get', engine: 'plain', target: 'fast' },
  { weight: 2, api: 'extended-get', engine: 'plain', target: 'slow' },
  { weight: 1, api: 'extended-get', engine: 'plain', target: 'target-404' },
  { weight: 2, api: 'extended-post', engine: 'plain', target: 'echo' },
  { weight: 8, api: 'v1-get', engine: 'plain', target: 'fast' },
  { weight: 2, api: 'v1-get', engine: 'plain', target: 'slow' },
  { weight: 1, api: 'v1-get', engine: 'plain', target: 'target-500' },
  { weight: 1, api: 'v1-get', engine: 'plain', target: 'walled' },
  { weight: 5, api: 'v1-post', engine: 'plain', target: 'fast' },
  { weight: 1, api: 'v1-post', engine: 'plain', target: 'target-404' },
];

const BROWSER: Template[] = [
  { weight: 6, api: 'v2-get', engine: 'browser', target: 'fast' },
  { weight: 4, api: 'v2-get', engine: 'browser', target: 'js-page' },
  { weight: 4, api: 'v2-get', engine: 'browser', target: 'raw-source' },
  { weight: 1, api: 'v2-get', engine: 'browser', target: 'slow' },
  { weight: 1, api: 'v2-get', engine: 'browser', target: 'target-404' },
  { weight: 1, api: 'v2-get', engine: 'browser', target: 'walled' },
  { weight: 1, api: 'v2-post', engine: 'browser', target: 'echo' },
  { weight: 3, api: 'extended-get', engine: 'browser', target: 'js-page' },
  { weight: 2, api: 'v1-get', engine: 'browser', target: 'fast' },
  { weight: 1, api: 'v1-post', engine: 'browser', target: 'js-page' },
];

const KEYS: Array<[KeyName, number]> = [['business', 40], ['startup', 25], ['free', 15], ['tight', 17], ['bogus', 3]];

export interface PlanOptions {
  count: number;
  /** Share of browser requests, 0–1, sized to the pool by the caller. */
  browserShare: number;
  seed: number;
  walls: string[];
  notWalls: string[];
}

/** `count` mixed requests, in the order they are sent. */
export function planRequests(o: PlanOptions): PlannedRequest[] {
  const random = seededRandom(o.seed);
  const plainTotal = PLAIN.reduce((s, t) => s + t.weight, 0);
  const browserTotal = BROWSER.reduce((s, t) => s + t.weight, 0);
  const templates: Array<[Template, number]> = [
    ...PLAIN.map((t): [Template, number] => [t, (t.weight / plainTotal) * (1 - o.browserShare)]),
    ...BROWSER.map((t): [Template, number] => [t, (t.weight / browserTotal) * o.browserShare]),
  ];
  return Array.from({ length: o.count }, (_, id) => {
    const t = weighted(random, templates);
    const key = weighted(random, KEYS);
    const p = random();
    let proxy: ProxyChoice;
    if (p < 0.6) proxy = undefined; // a random listed datacenter country
    else if (p < 0.8) proxy = { type: 'datacenter', country: pick(random, ['US', 'us']) };
    else if (p < 0.88) proxy = { type: 'datacenter', country: 'de' };
    // The free plan's 10,000 credits are not spent on residential renders.
    else proxy = key === 'free' && t.engine === 'browser' ? undefined : { type: 'residential', country: pick(random, ['fr', 'DE', 'jp', 'us', 'br']) };
    const variant =
      t.target === 'slow' ? String(500 + Math.floor(random() * 1500))
      : t.target === 'walled' ? pick(random, o.walls)
      : t.target === 'not-a-wall' ? pick(random, o.notWalls)
      : '';
    return { id, api: t.api, engine: t.engine, target: t.target, key, proxy, variant, returnText: random() < 0.3, keyInHeader: random() < 0.5 };
  });
}

/** Every session renders twice before the mixed requests, so the pool's memory is read warm. */
export function warmUpRequests(poolSize: number): PlannedRequest[] {
  return Array.from({ length: poolSize * 2 }, (_, i) => ({
    id: -1 - i, api: 'v2-get', engine: 'browser', target: 'fast', key: 'warmup', proxy: undefined, variant: '', returnText: false, keyInHeader: false,
  }));
}
