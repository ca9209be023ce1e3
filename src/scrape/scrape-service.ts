import type { Logger } from 'pino';
import type { CostTable } from '../config/catalog.js';
import type { WallDetector } from '../egress/antibot/wall-detector.js';
import type { Egress } from '../egress/egress.js';
import type { EgressContext } from '../egress/egress-context.js';
import { ConflictError, ForbiddenError, UnprocessableEntityError } from '../errors/api-error.js';
import { ShuttingDownError } from '../errors/shutting-down-error.js';
import { AntiBotDetectedError, TargetForbiddenError } from '../errors/engine-errors.js';
import { translateEngineError } from '../errors/translate-engine-error.js';
import { Deadline } from '../fetchers/deadline.js';
import type { EngineName, EngineRegistry } from '../fetchers/engine-registry.js';
import type { FetchedPage } from '../fetchers/fetcher.js';
import { hashApiKey, type ApiKeyRecord, type ApiKeyStore } from '../store/api-key-store.js';
import type { CreditStore } from '../store/credit-store.js';
import type { Lease, LeaseStore } from '../store/lease-store.js';
import type { Metrics } from '../observability/metrics.js';
import { creditCost } from './credit-cost.js';
import type { ScrapeRequest } from './scrape-request.js';

export interface ScrapeServiceDeps {
  keys: ApiKeyStore;
  credits: CreditStore;
  leases: LeaseStore;
  engines: EngineRegistry;
  egress: Egress;
  walls: WallDetector;
  costs: CostTable;
  leaseGraceMs: number;
  metrics: Metrics;
  /** Aborted when a shutdown's grace period ends: requests still running fail, uncharged. */
  stopping: AbortSignal;
  logger: Logger;
}

/** Credits taken for one request, to give back if its answer will not be a 200, and its slot. */
interface Charge {
  refund(): Promise<void>;
  release(): Promise<void>;
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
      const cost = creditCost(this.deps.costs, req);
      const charge = await this.charge(apiKey, cost, deadline);
      try {
        const egress = await this.openEgress(req, deadline);
        const page = await untilStopped(this.fetch(req, egress), this.deps.stopping);
        this.deps.metrics.charged(engineOf(req), req.proxyType, cost);
        return { page, cost };
      } catch (err) {
        await charge.refund();
        throw err;
      } finally {
        await charge.release();
      }
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Authenticates and takes the credits. A key of an uncapped plan costs one statement (the
   * debit is the authentication); only when it changes nothing is the key read to say why (403),
   * to roll its period over, or to hold a concurrency slot for a capped plan (409).
   */
  private async charge(apiKey: string, cost: number, deadline: Deadline): Promise<Charge> {
    const keyHash = hashApiKey(apiKey);
    const at = Date.now();
    const { credits, leases, logger } = this.deps;
    if (await credits.debitUncapped(keyHash, cost, at)) {
      return { refund: () => credits.refundUncapped(keyHash, cost, at), release: async () => undefined };
    }
    let key = await this.authenticate(apiKey);
    if (key.creditsRemaining < cost) throw insufficient(key, cost);
    const lease = await this.takeSlot(key, deadline);
    const release = async () => {
      if (lease) await leases.release(lease).catch((err: unknown) => logger.error({ err }, 'lease release failed'));
    };
    try {
      if (!(await credits.reserve(key.id, cost, key.periodEnd))) {
        // Drained by a concurrent request, or the period just rolled over: re-read once.
        key = await this.authenticate(apiKey);
        if (!(await credits.reserve(key.id, cost, key.periodEnd))) throw insufficient(key, cost);
      }
    } catch (err) {
      await release();
      throw err;
    }
    const { id, periodEnd } = key;
    return { refund: () => credits.refund(id, cost, periodEnd), release };
  }

  private async takeSlot(key: ApiKeyRecord, deadline: Deadline): Promise<Lease | undefined> {
    if (key.maxConcurrency === null) return undefined;
    const lease = await this.deps.leases.acquire(key.id, key.maxConcurrency, deadline.budgetMs + this.deps.leaseGraceMs);
    if (!lease) {
      throw new ConflictError(`Concurrent request limit of your plan (${key.maxConcurrency}) reached. Wait for a request to finish or upgrade the plan.`);
    }
    return lease;
  }

  /**
   * The request's route (a proxy type or country this server lacks is an invalid value) and the
   * requested URL checked against the target policy before anything is sent: a refused URL is an
   * invalid value of `url`, nothing is fetched and nothing is charged.
   */
  private async openEgress(req: ScrapeRequest, deadline: Deadline): Promise<EgressContext> {
    let egress: EgressContext;
    try {
      egress = this.deps.egress.open(req.proxyType, req.proxyCountry, deadline);
    } catch (err) {
      throw translateEngineError(err, req.paramSource);
    }
    try {
      await egress.checkUrl(req.url);
    } catch (err) {
      if (err instanceof TargetForbiddenError) {
        throw new UnprocessableEntityError([{ loc: [req.paramSource, 'url'], msg: `the URL is not allowed: ${err.reason}`, type: 'value_error.url.forbidden' }]);
      }
      // Any other failure (the name does not resolve yet) is the engine's to meet, retry and report.
    }
    return egress;
  }

  private async fetch(req: ScrapeRequest, egress: EgressContext): Promise<FetchedPage> {
    try {
      return await this.fetchPastWalls(req, egress);
    } catch (err) {
      const apiError = translateEngineError(err, req.paramSource);
      if (apiError.status === 500) this.deps.logger.error({ err }, 'engine failure');
      throw apiError;
    }
  }

  /**
   * A page behind an anti-bot wall is fetched again from another proxy of the choice while time
   * allows, each proxy once: an engine that fails over past a dead proxy may land on one that
   * walled the request already, and that is the end of the tries (423), not a loop to the deadline.
   */
  private async fetchPastWalls(req: ScrapeRequest, egress: EgressContext): Promise<FetchedPage> {
    const walledBy = new Set<string>();
    for (;;) {
      const started = process.hrtime.bigint();
      const fetched = (outcome: 'ok' | 'wall' | 'error') => this.deps.metrics.fetched(engineOf(req), req.proxyType, outcome, secondsSince(started));
      const page = await this.engineFetch(req, egress).catch((err: unknown) => {
        fetched('error');
        throw err;
      });
      const verdict = this.deps.walls.detect({ status: page.status, headers: page.headers, body: page.body.toString('latin1', 0, WALL_EVIDENCE_BYTES) });
      fetched(verdict ? 'wall' : 'ok');
      if (!verdict) return page;
      this.deps.metrics.wall(verdict.vendor);
      const proxy = egress.route.current;
      this.deps.logger.info({ vendor: verdict.vendor, wall: verdict.wall, proxy: proxy?.label }, 'anti-bot wall');
      const again = proxy !== undefined && walledBy.has(proxy.id);
      if (proxy) walledBy.add(proxy.id);
      if (again || egress.deadline.expired || !egress.route.rotate()) throw new AntiBotDetectedError(verdict.vendor, verdict.wall);
    }
  }

  private engineFetch(req: ScrapeRequest, egress: EgressContext): Promise<FetchedPage> {
    return this.deps.engines.get(engineOf(req)).fetch({
      url: req.url,
      method: req.method,
      headers: req.headers,
      body: req.body,
      cookies: req.cookies,
      deadline: egress.deadline,
      egress,
      returnPageSource: req.returnPageSource,
      jsSnippet: req.jsSnippet,
      waitForSelector: req.waitForSelector,
      blockResources: req.blockResources,
      collectExtras: req.collectExtras,
      wantsText: req.wantsText,
      wantsCookies: req.wantsCookies,
    });
  }
}

function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function engineOf(req: ScrapeRequest): EngineName {
  return req.browser ? 'browser' : 'plain';
}

/**
 * The fetch, unless the server's shutdown grace ends first: then the request fails at once (its
 * credits are refunded and its slot released by the caller) and the engine's work is dropped,
 * to be cut when the engines close.
 */
function untilStopped<T>(work: Promise<T>, stopping: AbortSignal): Promise<T> {
  if (stopping.aborted) return Promise.reject(new ShuttingDownError());
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new ShuttingDownError());
    stopping.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => stopping.removeEventListener('abort', stop));
  });
}

/** The wall detector reads no further than this into a body. */
const WALL_EVIDENCE_BYTES = 256 * 1024;

function insufficient(key: ApiKeyRecord, cost: number): ForbiddenError {
  return new ForbiddenError(`Not enough credits: this request costs ${cost} and ${key.creditsRemaining} remain until ${new Date(key.periodEnd).toISOString()}.`);
}
