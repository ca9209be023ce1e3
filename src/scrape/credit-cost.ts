import type { CostTable, EngineKind } from '../config/catalog.js';
import type { ScrapeRequest } from './scrape-request.js';

export function engineKind(req: Pick<ScrapeRequest, 'browser' | 'returnPageSource'>): EngineKind {
  if (!req.browser) return 'plain';
  return req.returnPageSource ? 'browser-source' : 'browser';
}

export function creditCost(costs: CostTable, req: Pick<ScrapeRequest, 'browser' | 'returnPageSource' | 'proxyType'>): number {
  return costs[engineKind(req)][req.proxyType];
}
