// What a planned request may be answered: the statuses scrapegate may give it, for a 200 the
// target's status and a piece of its content, and what that 200 costs by the README's table.
import { methodOf } from './http-call.js';
import type { PlannedRequest } from './plan.js';

/** The README's cost table (the server's defaults: the run sets no PLANS_CONFIG). */
export const COSTS = {
  plain: { datacenter: 1, residential: 25 },
  'browser-source': { datacenter: 2, residential: 50 },
  browser: { datacenter: 10, residential: 125 },
} as const;

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
