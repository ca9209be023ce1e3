// How a planned request travels to scrapegate: the target URL it names, the deadline it asks for,
// and the method, path, query, headers and body of the HTTP request that carries it.
import { BLOCK_ALL } from '../../../test/fixtures/antibot/index.js';
import type { Api, PlannedRequest } from './plan.js';

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
