// The mixed requests of a load run: which endpoint, engine, target, key and proxy each one uses,
// what it may be answered, and what it costs when it is answered 200. Drawn from a seeded
// generator, so one seed always gives the same run.
import { BLOCK_ALL } from '../../../test/fixtures/antibot/index.js';

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

/** The README's cost table (the server's defaults: the run sets no PLANS_CONFIG). */
export const COSTS = {
  plain: { datacenter: 1, residential: 25 },
  'browser-source': { datacenter: 2, residential: 50 },
  browser: { datacenter: 10, residential: 125 },
} as const;

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

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function weighted<T>(random: () => number, items: Array<[T, number]>): T {
  const total = items.reduce((sum, [, w]) => sum + w, 0);
  let r = random() * total;
  for (const [item, w] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return items[items.length - 1][0];
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];

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

export function expectedCost(r: Pick<PlannedRequest, 'engine' | 'target' | 'proxy'>): number {
  const kind = r.engine === 'plain' ? 'plain' : r.target === 'raw-source' ? 'browser-source' : 'browser';
  return COSTS[kind][r.proxy?.type ?? 'datacenter'];
}

/** The target's status inside an outer 200, and a piece of text the answer must hold. */
export interface PageExpectation {
  status: number;
  marker: string;
}

/** What may answer a request: the statuses, and for a 200 the target's status and content. */
export interface Expectation {
  statuses: number[];
  page: PageExpectation | undefined;
  /** A 404 is also accepted when it says the request timed out (a loaded 2-core machine). */
  timeoutAllowed: boolean;
}

export function expectation(r: PlannedRequest, notWallStatus: (name: string) => number): Expectation {
  if (r.key === 'bogus') return { statuses: [403], page: undefined, timeoutAllowed: false };
  const statuses: number[] = [];
  let page: PageExpectation | undefined;
  const v1 = r.api.startsWith('v1');
  switch (r.target) {
    case 'walled':
      statuses.push(423);
      break;
    case 'reset':
    case 'refused':
      statuses.push(404);
      break;
    case 'fast':
      page = { status: 200, marker: v1 && r.returnText ? 'Hello target' : '<h1>Hello target</h1>' };
      break;
    case 'slow':
      page = { status: 200, marker: 'slow done' };
      break;
    case 'target-500':
      page = { status: 500, marker: 'status 500' };
      break;
    case 'target-404':
      page = { status: 404, marker: 'status 404' };
      break;
    case 'not-a-wall':
      page = { status: notWallStatus(r.variant), marker: '' };
      break;
    case 'echo':
      page = { status: 200, marker: r.engine === 'browser' ? `${r.api === 'v2-post' ? 'POST' : 'GET'} ` : `"method":"${methodOf(r.api)}"` };
      break;
    case 'js-page':
      page = { status: 200, marker: v1 && r.returnText ? 'rendered late' : '<p id="late">rendered late</p>' };
      break;
    case 'raw-source':
      page = { status: 200, marker: 'document.getElementById("x").textContent = "changed"' };
      break;
  }
  if (page) statuses.push(200);
  if (r.key === 'free') statuses.push(409);
  if (r.key === 'tight') statuses.push(403);
  return { statuses, page, timeoutAllowed: r.target !== 'reset' && r.target !== 'refused' };
}

export function methodOf(api: Api): 'GET' | 'POST' | 'PUT' | 'DELETE' {
  if (api === 'v2-post' || api === 'extended-post' || api === 'v1-post') return 'POST';
  if (api === 'v2-put') return 'PUT';
  if (api === 'v2-delete') return 'DELETE';
  return 'GET';
}

/** Where the load run's targets live, to turn a planned request into a URL. */
export interface Targets {
  url(path: string): string;
  refusedUrl: string;
}

function targetUrl(r: PlannedRequest, t: Targets): string {
  switch (r.target) {
    case 'fast':
      return t.url(`/page?r=${r.id}`);
    case 'slow':
      return t.url(`/slow?ms=${r.variant}&r=${r.id}`);
    case 'target-500':
      return t.url(`/status?code=500&r=${r.id}`);
    case 'target-404':
      return t.url(`/status?code=404&r=${r.id}`);
    case 'not-a-wall':
      return t.url(`/not-a-wall/${r.variant}?r=${r.id}`);
    case 'echo':
      return t.url(`${r.engine === 'browser' ? '/echo-page' : '/echo'}?r=${r.id}`);
    case 'js-page':
      return t.url(`/js-page?r=${r.id}`);
    case 'raw-source':
      return t.url(`/raw-source?r=${r.id}`);
    case 'walled':
      return t.url(`/walled/${r.variant}?r=${r.id}`);
    case 'reset':
      return t.url(`/reset?r=${r.id}`);
    case 'refused':
      return `${t.refusedUrl}?r=${r.id}`;
  }
}

/** Seconds of scrapegate's deadline: v2 asks for one (5 s for targets that fail slowly), v1 has 60. */
export function deadlineSeconds(r: PlannedRequest): number {
  if (r.api.startsWith('v1')) return 60;
  return r.target === 'reset' || r.target === 'refused' ? 5 : 30;
}

export interface HttpCall {
  path: string;
  query: Array<[string, string]>;
  init: { method: string; headers: Record<string, string>; body?: string };
}

/** The HTTP request that carries a planned request to scrapegate. */
export function httpCall(r: PlannedRequest, apiKey: string, t: Targets): HttpCall {
  const url = targetUrl(r, t);
  const browser = r.engine === 'browser';
  if (r.api === 'v1-get' || r.api === 'v1-post') {
    const params: Record<string, string | boolean> = { url, browser };
    if (r.returnText) params.return_text = true;
    if (r.target === 'js-page') params.wait_for_selector = '#late';
    if (r.proxy) {
      params.proxy_type = r.proxy.type;
      if (r.proxy.country) params.proxy_country = r.proxy.country;
    }
    const headers: Record<string, string> = r.keyInHeader ? { 'x-api-key': apiKey } : {};
    if (!r.keyInHeader) params['x-api-key'] = apiKey;
    if (r.api === 'v1-get') {
      return { path: '/v1/general', query: Object.entries(params).map(([k, v]) => [k, String(v)]), init: { method: 'GET', headers } };
    }
    return { path: '/v1/general', query: [], init: { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(params) } };
  }
  const query: Array<[string, string]> = [['x-api-key', apiKey], ['url', url], ['browser', String(browser)], ['timeout', String(deadlineSeconds(r))]];
  if (r.target === 'raw-source') query.push(['return_page_source', 'true']);
  if (r.target === 'js-page') query.push(['wait_for_selector', '#late']);
  if (browser && r.target === 'walled') query.push(...BLOCK_ALL);
  if (r.proxy) {
    query.push(['proxy_type', r.proxy.type]);
    if (r.proxy.country) query.push(['proxy_country', r.proxy.country]);
  }
  const method = methodOf(r.api);
  const path = r.api.startsWith('extended') ? '/v2/extended' : '/v2/general';
  const headers: Record<string, string> = { 'svc-x-load-run': String(r.id) };
  if (method === 'POST' || method === 'PUT') {
    headers['svc-content-type'] = 'application/json';
    return { path, query, init: { method, headers, body: JSON.stringify({ request: r.id, method }) } };
  }
  return { path, query, init: { method, headers } };
}
