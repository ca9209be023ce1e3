import type { Logger } from 'pino';
import { hashApiKey, type Billing } from '../billing/billing.js';
import type { KeyAccount } from '../billing/billing-store.js';
import type { CostTable } from '../config/catalog.js';
import type { Egress } from '../egress/egress.js';
import type { EgressContext } from '../egress/egress-context.js';
import { DeadlineExceededError, TargetForbiddenError, TargetUnreachableError, TargetUnusableError } from '../egress/fetch-errors.js';
import { SelectorTimeoutError } from '../engines/engine-errors.js';
import { AntiBotDetectedError } from './anti-bot-error.js';
import { BillingRefusal, BrowserBudgetExceededError, IpRestrictedError } from '../billing/billing-refusals.js';
import { ChargeNotRecordedError } from '../billing/charge-not-recorded-error.js';
import { ClientCancelledError } from '../time/client-cancelled-error.js';
import { ExtractRulesError } from '../content/extract/extract-rules-error.js';
import { HtmlWorkError, HtmlWorkTooCostlyError } from '../content/html-work/html-work-errors.js';
import { FetchError } from '../egress/fetch-errors.js';
import { InvalidValueError } from './invalid-value-error.js';
import { outcomeOf, statusOf } from './outcome.js';
import { ShuttingDownError } from './shutting-down-error.js';
import type { EngineName, EngineRegistry } from '../engines/engine-registry.js';
import type { FetchedPage } from '../engines/fetcher.js';
import type { Metrics } from '../observability/metrics.js';
import { Deadline } from '../time/deadline.js';
import { BODY_SCAN_LIMIT, type WallDetector } from './antibot/wall-detector.js';
import { creditCost, engineKind } from './credit-cost.js';
import type { HtmlWorkOwner } from '../content/html-work/html-workers.js';
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

/** What one call of a scrape brings besides its request: where its ledger id goes, and its caller's presence. */
export interface ScrapeCall {
  /** Learns the request's ledger id as soon as it has one, so that whatever the answer it can carry it. */
  billed?: (requestId: string) => void;
  /** Aborted when the caller is gone (it hung up): the work stops and nothing is charged. */
  cancelled?: AbortSignal;
}

export interface ScrapeOutcome<T> {
  /** What the handler made of the page: the request is charged only once this exists. */
  answer: T;
  page: FetchedPage;
  cost: number;
}

/**
 * Work done for nothing, counted against the key's failure budget (billing/browser-budget.ts): a
 * browser request that ran and then failed on the target's side (unreachable, too slow, no
 * selector, an unusable answer, a page that crashed its renderer, a wall), where the page was loaded and the caller's script run;
 * or HTML work that ran into a cost cap (an extraction's steps, results or size, a task's time or
 * memory), where a worker was held up to the cap. Refusals before any work (a full queue
 * included), our own failures and other limits are not.
 */
function unchargedWork(req: ScrapeRequest, err: unknown): 'browser' | 'html' | undefined {
  const failed = [TargetUnreachableError, DeadlineExceededError, SelectorTimeoutError, TargetUnusableError, AntiBotDetectedError];
  if (req.browser && failed.some((kind) => err instanceof kind)) return 'browser';
  if (req.htmlWork && (err instanceof ExtractRulesError || err instanceof HtmlWorkTooCostlyError)) return 'html';
  return undefined;
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
   * once the answer exists, refunded on any failure, the shaping included. `shape` is given who
   * its HTML work is for (the key's hash, and the request's end: its deadline, or its caller
   * leaving). A caller gone before the charge (`call.cancelled`) stops the work and is never
   * charged: the ledger records its cancellation.
   */
  async scrape<T>(
    apiKey: string,
    req: ScrapeRequest,
    shape: (page: FetchedPage, owner: HtmlWorkOwner) => T | Promise<T>,
    call: ScrapeCall = {},
  ): Promise<ScrapeOutcome<T>> {
    const { billed, cancelled } = call;
    if (cancelled?.aborted) throw new ClientCancelledError();
    const deadline = new Deadline(req.timeoutMs);
    try {
      const cost = creditCost(this.deps.costs, req);
      const facts = { operation: req.operation, engine: engineKind(req), proxyType: req.proxyType, proxyCountry: req.proxyCountry ?? null, targetHost: req.url.hostname };
      const reservation = await this.deps.billing
        .reserve(apiKey, { cost, budgeted: req.browser || req.htmlWork, at: Date.now() }, facts, deadline, req.clientAddress)
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
        page = await untilAborted(this.fetchPastWalls(req, egress, cancelled), this.deps.stopping, cancelled);
        const ends = cancelled ? AbortSignal.any([deadline.signal, cancelled]) : deadline.signal;
        answer = await untilAborted(Promise.resolve(shape(page, { key: hashApiKey(apiKey), signal: ends })), this.deps.stopping, cancelled);
        // Never charged for an answer whose caller has already gone.
        if (cancelled?.aborted) throw new ClientCancelledError();
      } catch (err) {
        if (err instanceof ClientCancelledError) this.deps.metrics.clientCancelled();
        const failure = unchargedWork(req, err);
        if (failure === 'browser') this.deps.metrics.unchargedBrowserFailure();
        await reservation.refund({ status: statusOf(err), pageStatus: null, failure: failureOf(err), proxyCountry: egress?.route.country ?? null }, failure !== undefined);
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
  private async fetchPastWalls(req: ScrapeRequest, egress: EgressContext, cancelled: AbortSignal | undefined): Promise<FetchedPage> {
    const walledBy = new Set<string>();
    for (;;) {
      if (cancelled?.aborted) throw new ClientCancelledError();
      const started = process.hrtime.bigint();
      const fetched = (outcome: 'ok' | 'wall' | 'error') => this.deps.metrics.fetched(engineOf(req), req.proxyType, outcome, secondsSince(started));
      const page = await this.engineFetch(req, egress, cancelled).catch((err: unknown) => {
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

  private engineFetch(req: ScrapeRequest, egress: EgressContext, cancelled: AbortSignal | undefined): Promise<FetchedPage> {
    return this.deps.engines.get(engineOf(req)).fetch({
      cancelled,
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

/** Why a request failed, in the ledger's words: what the service says of it, never a bug's insides (which may hold anything). */
function failureOf(err: unknown): string {
  return (outcomeOf(err) !== 'internal' ? (err as Error).message : 'a failure inside the service').slice(0, 200);
}

function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function engineOf(req: ScrapeRequest): EngineName {
  return req.browser ? 'browser' : 'plain';
}

/**
 * The work, unless the server's shutdown grace ends first or the caller goes: then the request
 * fails at once (its credits are refunded and its slot released by the caller). The engine
 * stops on its own when its caller is gone (FetchSpec.cancelled); at shutdown its work is cut
 * when the engines close.
 */
function untilAborted<T>(work: Promise<T>, stopping: AbortSignal, cancelled: AbortSignal | undefined): Promise<T> {
  if (stopping.aborted) return Promise.reject(new ShuttingDownError());
  if (cancelled?.aborted) return Promise.reject(new ClientCancelledError());
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new ShuttingDownError());
    const gone = () => reject(new ClientCancelledError());
    stopping.addEventListener('abort', stop, { once: true });
    cancelled?.addEventListener('abort', gone, { once: true });
    work.then(resolve, reject).finally(() => {
      stopping.removeEventListener('abort', stop);
      cancelled?.removeEventListener('abort', gone);
    });
  });
}

