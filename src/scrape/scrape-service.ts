import type { Logger } from 'pino';
import type { CostTable } from '../config/catalog.js';
import type { ProxyProvider } from '../egress/proxy-provider.js';
import { ConflictError, ForbiddenError } from '../errors/api-error.js';
import { translateEngineError } from '../errors/translate-engine-error.js';
import { Deadline } from '../fetchers/deadline.js';
import type { EngineRegistry } from '../fetchers/engine-registry.js';
import type { FetchedPage } from '../fetchers/fetcher.js';
import type { ApiKeyRecord, ApiKeyStore } from '../store/api-key-store.js';
import type { CreditStore } from '../store/credit-store.js';
import type { Lease, LeaseStore } from '../store/lease-store.js';
import { creditCost } from './credit-cost.js';
import type { ScrapeRequest } from './scrape-request.js';

export interface ScrapeServiceDeps {
  keys: ApiKeyStore;
  credits: CreditStore;
  leases: LeaseStore;
  engines: EngineRegistry;
  proxies: ProxyProvider;
  costs: CostTable;
  leaseGraceMs: number;
  logger: Logger;
}

export interface ScrapeOutcome {
  page: FetchedPage;
  cost: number;
}

/**
 * Authenticates, holds a concurrency slot, reserves the credits, runs the engine, and gives the
 * credits back when the answer will not be a 200. Everything a request costs is settled here.
 */
export class ScrapeService {
  constructor(private readonly deps: ScrapeServiceDeps) {}

  async authenticate(apiKey: string): Promise<ApiKeyRecord> {
    const key = await this.deps.keys.findActive(apiKey);
    if (!key) throw new ForbiddenError('Invalid API key.');
    return key;
  }

  async scrape(apiKey: string, req: ScrapeRequest): Promise<ScrapeOutcome> {
    const deadline = new Deadline(req.timeoutMs);
    try {
      let key = await this.authenticate(apiKey);
      const cost = creditCost(this.deps.costs, req);
      if (key.creditsRemaining < cost) throw insufficient(key, cost);
      const lease = await this.takeSlot(key, deadline);
      try {
        if (!(await this.deps.credits.reserve(key.id, cost, key.periodEnd))) {
          // Drained by a concurrent request, or the period just rolled over: re-read once.
          key = await this.authenticate(apiKey);
          if (!(await this.deps.credits.reserve(key.id, cost, key.periodEnd))) throw insufficient(key, cost);
        }
        try {
          const page = await this.fetch(req, deadline);
          return { page, cost };
        } catch (err) {
          await this.deps.credits.refund(key.id, cost, key.periodEnd);
          throw err;
        }
      } finally {
        if (lease) await this.deps.leases.release(lease).catch((err) => this.deps.logger.error({ err }, 'lease release failed'));
      }
    } finally {
      deadline.dispose();
    }
  }

  private async takeSlot(key: ApiKeyRecord, deadline: Deadline): Promise<Lease | undefined> {
    if (key.maxConcurrency === null) return undefined;
    const lease = await this.deps.leases.acquire(key.id, key.maxConcurrency, deadline.budgetMs + this.deps.leaseGraceMs);
    if (!lease) {
      throw new ConflictError(`Concurrent request limit of your plan (${key.maxConcurrency}) reached. Wait for a request to finish or upgrade the plan.`);
    }
    return lease;
  }

  private async fetch(req: ScrapeRequest, deadline: Deadline): Promise<FetchedPage> {
    try {
      const engine = this.deps.engines.get(req.browser ? 'browser' : 'plain');
      const proxy = await this.deps.proxies.proxyFor(req.proxyType, req.proxyCountry);
      return await engine.fetch({
        url: req.url,
        method: req.method,
        headers: req.headers,
        body: req.body,
        cookies: req.cookies,
        deadline,
        proxy,
        returnPageSource: req.returnPageSource,
        jsSnippet: req.jsSnippet,
        waitForSelector: req.waitForSelector,
        blockResources: req.blockResources,
        collectExtras: req.collectExtras,
        wantsText: req.wantsText,
      });
    } catch (err) {
      const apiError = translateEngineError(err);
      if (apiError.status === 500) this.deps.logger.error({ err }, 'engine failure');
      throw apiError;
    }
  }
}

function insufficient(key: ApiKeyRecord, cost: number): ForbiddenError {
  return new ForbiddenError(`Not enough credits: this request costs ${cost} and ${key.creditsRemaining} remain until ${new Date(key.periodEnd).toISOString()}.`);
}
