import type { Logger } from 'pino';
import { hashApiKey, type Billing } from '../billing/billing.js';
import type { KeyAccount } from '../billing/billing-store.js';
import type { CostTable } from '../config/catalog.js';
import type { Egress } from '../egress/egress.js';
import type { EgressContext } from '../egress/egress-context.js';
import {
  AntiBotDetectedError,
  DeadlineExceededError,
  SelectorTimeoutError,
  TargetForbiddenError,
  TargetUnreachableError,
  TargetUnusableError,
} from '../errors/engine-errors.js';
import { BillingRefusal, BrowserBudgetExceededError, IpRestrictedError } from '../errors/billing-refusals.js';
import { ChargeNotRecordedError } from '../errors/charge-not-recorded-error.js';
import { inQuery, toApiError } from '../errors/to-api-error.js';
import { EngineError } from '../errors/engine-errors.js';
import { InvalidValueError } from '../errors/invalid-value-error.js';
import { ApiError } from '../errors/api-error.js';
import { ShuttingDownError } from '../errors/shutting-down-error.js';
import type { EngineName, EngineRegistry } from '../fetchers/engine-registry.js';
import type { FetchedPage } from '../fetchers/fetcher.js';
import type { Metrics } from '../observability/metrics.js';
import { Deadline } from '../time/deadline.js';
import { BODY_SCAN_LIMIT, type WallDetector } from './antibot/wall-detector.js';
import { creditCost, engineKind } from './credit-cost.js';
import type { ScrapeRequest } from './scrape-request.js';

export interface ScrapeServiceDeps {
  billing: Billing;
  engines: EngineRegistry;
  egress: Egress;
  walls: WallDetector;
  costs: CostTable;
  metrics: Metrics;
  /** Aborted when a shutdown's grace period ends: requests still running fail, uncharged. */
  stopping: AbortSignal;
  /** Counts a known key's refusals by status, for its usage report (billing/refusal-tally.ts). */
  refusals?: { count(apiKeyId: number, status: number, at: number): void };
  logger: Logger;
}

export interface ScrapeOutcome<T> {
  /** What the handler made of the page: the request is charged only once this exists. */
  answer: T;
  page: FetchedPage;
  cost: number;
}

/**
 * A browser request that ran and then failed on the target's side (unreachable, too slow, no
 * selector, an unusable answer, a page that crashed its renderer, a wall): the page was loaded,
 * and the caller's script run, for nothing. Refusals before any work, our own failures and limits
 * are not.
 */
function unchargedBrowserWork(req: ScrapeRequest, err: unknown): boolean {
  const failed = [TargetUnreachableError, DeadlineExceededError, SelectorTimeoutError, TargetUnusableError, AntiBotDetectedError];
  return req.browser && failed.some((kind) => err instanceof kind);
}

/**
 * Authenticates, holds a concurrency slot, reserves the credits, runs the engine, and gives the
 * credits back when the answer will not be a 200. Everything a request costs is settled here.
 */
export class ScrapeService {
  constructor(private readonly deps: ScrapeServiceDeps) {}

  /** The key's account in its current period (403 for a key that is not active, or not to be used from `clientAddress`). */
  account(apiKey: string, clientAddress: string): Promise<KeyAccount> {
    return this.deps.billing.account(apiKey, clientAddress).catch((err: unknown) => this.countRefusal(err));
  }

  /**
   * Reserves the credits, runs the engine, shapes the answer (`shape`), and settles: charged
   * once the answer exists, refunded on any failure, the shaping included. `billed` learns the
   * request's ledger id as soon as it has one, so that whatever the answer it can carry it.
   */
  async scrape<T>(apiKey: string, req: ScrapeRequest, shape: (page: FetchedPage) => T | Promise<T>, billed?: (requestId: string) => void): Promise<ScrapeOutcome<T>> {
    const deadline = new Deadline(req.timeoutMs);
    try {
      const cost = creditCost(this.deps.costs, req);
      const facts = { operation: req.operation, engine: engineKind(req), proxyType: req.proxyType, proxyCountry: req.proxyCountry ?? null, targetHost: req.url.hostname };
      const reservation = await this.deps.billing
        .reserve(apiKey, { cost, browser: req.browser, at: Date.now() }, facts, deadline, req.clientAddress)
        .catch((err: unknown) => {
          if (err instanceof BillingRefusal && err.keyId !== undefined) this.deps.refusals?.count(err.keyId, statusOf(err), Date.now());
          return this.countRefusal(err);
        });
      billed?.(reservation.requestId);
      let answer: T;
      let page: FetchedPage;
      let egress: EgressContext | undefined;
      try {
        egress = await this.openEgress(apiKey, req, deadline);
        page = await untilStopped(this.fetchPastWalls(req, egress), this.deps.stopping);
        answer = await shape(page);
      } catch (err) {
        const failure = unchargedBrowserWork(req, err);
        if (failure) this.deps.metrics.unchargedBrowserFailure();
        await reservation.refund({ status: statusOf(err), pageStatus: null, failure: failureOf(err), proxyCountry: egress?.route.country ?? null }, failure);
        throw err;
      }
      try {
        await reservation.charge({ status: 200, pageStatus: page.status, failure: null, proxyCountry: egress.route.country ?? null });
      } catch (err) {
        if (err instanceof ChargeNotRecordedError) {
          if (err.uncertain) this.deps.logger.error({ requestId: err.requestId }, 'a charge may have landed although its request was answered 500; check the key\'s balance');
          await reservation.refund({ status: 500, pageStatus: page.status, failure: 'the charge could not be recorded', proxyCountry: null }, false).catch(() => undefined);
        }
        throw err;
      }
      this.deps.metrics.charged(engineOf(req), req.proxyType, cost);
      return { answer, page, cost };
    } finally {
      deadline.dispose();
    }
  }

  /** The refusals the metrics count, counted; rethrown. */
  private countRefusal(err: unknown): never {
    if (err instanceof BrowserBudgetExceededError) this.deps.metrics.browserBudgetRefused();
    if (err instanceof IpRestrictedError) this.deps.metrics.ipRestricted();
    throw err;
  }

  /**
   * The request's route (a proxy type or country this server lacks is an invalid value) and the
   * requested URL checked against the target policy before anything is sent: a refused URL is an
   * invalid value of `url`, nothing is fetched and nothing is charged.
   */
  private async openEgress(apiKey: string, req: ScrapeRequest, deadline: Deadline): Promise<EgressContext> {
    // A session is the key's own: named by the key's hash (never the secret), so it survives nothing but the key.
    const session = req.sessionId === undefined ? undefined : { key: hashApiKey(apiKey), id: req.sessionId };
    const egress = this.deps.egress.open(req.proxyType, req.proxyCountry, deadline, session);
    try {
      await egress.checkUrl(req.url);
    } catch (err) {
      if (err instanceof TargetForbiddenError) throw new InvalidValueError('url', `the URL is not allowed: ${err.reason}`, 'value_error.url.forbidden');
      // Any other failure (the name does not resolve yet) is the engine's to meet, retry and report.
    }
    return egress;
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
      const verdict = this.deps.walls.detect({ status: page.status, headers: page.headers, body: page.body.toString('latin1', 0, BODY_SCAN_LIMIT) });
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
      capture: req.capture,
    });
  }
}

/** The HTTP status a failure is answered with, for the ledger (the edge decides it the same way). */
function statusOf(err: unknown): number {
  return toApiError(err, inQuery, 0)?.status ?? 500;
}

/** Why a request failed, in the ledger's words: what the service says of it, never a bug's insides (which may hold anything). */
function failureOf(err: unknown): string {
  const known = err instanceof EngineError || err instanceof InvalidValueError || err instanceof BillingRefusal || err instanceof ApiError;
  return (known ? err.message : 'a failure inside the service').slice(0, 200);
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

