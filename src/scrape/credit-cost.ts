import type { CostTable, EngineKind } from '../config/catalog.js';
import type { ScrapeRequest } from '../engines/scrape-request.js';

export function engineKind(request: Pick<ScrapeRequest, 'browser' | 'returnPageSource'>): EngineKind {
  if (!request.browser) return 'plain';
  return request.returnPageSource ? 'browser-source' : 'browser';
}

/** What a request costs, by the cost table: its engine and its proxy type. */
export function creditCost(costs: CostTable, request: Pick<ScrapeRequest, 'browser' | 'returnPageSource' | 'proxy'>): number {
  return costs[engineKind(request)][request.proxy.type];
}
