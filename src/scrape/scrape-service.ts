import type { Logger } from 'pino';
import type { SyncDemand } from './sync-demand.js';
import { BillingRefusal, BrowserBudgetExceededError, IpRestrictedError } from '../billing/billing-refusals.js';
import type { Billing } from '../billing/billing.js';
import type { Reservation } from '../billing/reservation.js';
import type { KeyAccount } from '../billing/billing-store.js';
import { ChargeNotRecordedError } from '../billing/charge-not-recorded-error.js';
import type { CostTable } from '../config/catalog.js';
import type { Egress } from '../egress/egress.js';
import type { EgressContext } from '../egress/egress-context.js';
import { TargetForbiddenError } from '../egress/fetch-errors.js';
import type { EngineRegistry } from '../engines/engine-registry.js';
import type { FetchedPage } from '../engines/fetcher.js';
import type { ScrapeRequest } from '../engines/scrape-request.js';
import type { Metrics } from '../observability/metrics.js';
import { ClientCancelledError } from '../time/client-cancelled-error.js';
import { Deadline } from '../time/deadline.js';
import { callerLeaves, race } from '../time/deadline-race.js';
import type { Answer } from './answer.js';
import type { WallDetector } from './antibot/wall-detector.js';
import { creditCost, engineKind } from './credit-cost.js';
import { InvalidValueError } from './invalid-value-error.js';
import { outcomeOf, statusOf } from './outcome.js';
import { ShuttingDownError } from './shutting-down-error.js';
import { wastedWork } from './wasted-work.js';
import { engineOf, fetchPastWalls } from './walled-fetch.js';

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
  /** Told of every synchronous scrape while it runs: background work (job items) yields to them. */
  demand?: SyncDemand;
  logger: Logger;
}

/** Who a scrape is for: the key, by its hash (a secret is never kept), and where its caller is. */
export interface Caller {
  keyHash: string;
  /** As a key's IP restriction judges it: the client of an API call, the submitter of a job. */
  clientAddress: string;
}

/** One scrape, whatever brought it: an API call, a batch item, a crawled page. */
export interface ScrapeCall<T> {
  /** What asked for it, as the ledger records it (an operationId, `batchScrape`, `crawl`…). */
  operation: string;
  caller: Caller;
  request: ScrapeRequest;
  answer: Answer<T>;
  /** Aborted when the caller is gone (it hung up, the job was cancelled): the work stops, uncharged. */
  cancelled?: AbortSignal;
  /** Learns the request's ledger id as soon as it has one, so that whatever the answer it can carry it. */
  billed?: (requestId: string) => void;
  /**
   * The ledger id to use (a job item's id, the same on every attempt): charged at most once, however
   * often it runs. Undefined: a new one.
   */
  requestId?: string;
  /**
   * Called once the answer is made, before the charge: a job stores the answer first, so that a crash
   * between the two can neither lose a charged answer nor charge twice. Its failure refunds.
   */
  answered?: (made: T, settled: { requestId: string; cost: number }) => Promise<void>;
  /** Nobody waits on it (a job's item): not synchronous demand (sync-demand.ts). */
  background?: boolean;
}

export interface ScrapeResult<T> {
  /** What the answer made of the page: the request is charged only once this exists. */
  answer: T;
  page: FetchedPage;
  cost: number;
  requestId: string;
}

/**
 * Every scrape, from an HTTP request or not: it authenticates, holds a concurrency slot, reserves
 * the credits, runs the engine, makes the answer, and settles: charged once the answer exists,
 * refunded on any failure (the ledger records the failure's outcome), never charged once its
 * caller is gone. Everything a request costs is settled here.
 */
export class ScrapeService {
  constructor(private readonly deps: ScrapeServiceDeps) {}

  /** The key's account in its current period (refused for a key that is not active, or not to be used from `clientAddress`). */
  account(caller: Caller): Promise<KeyAccount> {
    return this.deps.billing.accountByHash(caller.keyHash, caller.clientAddress).catch((err: unknown) => this.countRefusal(err));
  }

  async scrape<T>(call: ScrapeCall<T>): Promise<ScrapeResult<T>> {
    const { request, answer, cancelled, caller } = call;
    if (cancelled?.aborted) throw new ClientCancelledError();
    const deadline = new Deadline(request.timeoutMs);
    // Demand only once admitted: a request the ledger refuses (402, 429, an invalid key) or still
    // waits on never ran, so it must not hold the job items back as in-flight synchronous work.
    let ended: (() => void) | undefined;
    try {
      const reservation = await this.reserve(call, deadline);
      // Begun once admitted, ended by the finally below on every way out, thrown or returned.
      ended = call.background ? undefined : this.deps.demand?.begin();
      call.billed?.(reservation.requestId);
      let page: FetchedPage;
      let made: T;
      let egress: EgressContext | undefined;
      try {
        egress = await this.openEgress(caller, request, deadline);
        const attempt = { deadline, egress, needs: answer.needs, cancelled };
        const ends = [{ signal: this.deps.stopping, error: () => new ShuttingDownError() }, callerLeaves(cancelled)];
        page = await race(fetchPastWalls(this.deps, request, attempt), ends);
        const workEnds = cancelled ? AbortSignal.any([deadline.signal, cancelled]) : deadline.signal;
        made = await race(Promise.resolve(answer.build(page, { key: caller.keyHash, signal: workEnds, background: call.background })), ends);
        // Never charged for an answer whose caller has already gone.
        if (cancelled?.aborted) throw new ClientCancelledError();
        await call.answered?.(made, { requestId: reservation.requestId, cost: reservation.cost });
      } catch (err) {
        await this.refund(reservation, call, err, egress);
        throw err;
      }
      await this.charge(reservation, page, egress);
      this.deps.metrics.charged(engineOf(request), request.proxy.type, reservation.cost);
      return { answer: made, page, cost: reservation.cost, requestId: reservation.requestId };
    } finally {
      deadline.dispose();
      ended?.();
    }
  }

  private reserve<T>(call: ScrapeCall<T>, deadline: Deadline): Promise<Reservation> {
    const { request, answer, caller, operation } = call;
    const cost = creditCost(this.deps.costs, request);
    const facts = { operation, engine: engineKind(request), proxyType: request.proxy.type, proxyCountry: request.proxy.country ?? null, targetHost: request.url.hostname };
    const debit = { cost, budgeted: request.browser || answer.htmlWork, at: Date.now() };
    return this.deps.billing.reserve(caller.keyHash, debit, facts, deadline, caller.clientAddress, call.requestId).catch((err: unknown) => {
      if (err instanceof BillingRefusal && err.keyId !== undefined) this.deps.refusals?.count(err.keyId, statusOf(err), Date.now());
      return this.countRefusal(err);
    });
  }

  private async refund<T>(reservation: Reservation, call: ScrapeCall<T>, err: unknown, egress: EgressContext | undefined): Promise<void> {
    if (err instanceof ClientCancelledError) this.deps.metrics.clientCancelled();
    const counted = wastedWork(call.request, call.answer, err);
    if (counted === 'browser') this.deps.metrics.unchargedBrowserFailure();
    // Why it failed, in the ledger's words: what the service says of it, never a bug's insides.
    const failure = (outcomeOf(err) !== 'internal' ? (err as Error).message : 'a failure inside the service').slice(0, 200);
    await reservation.refund({ status: statusOf(err), pageStatus: null, failure, proxyCountry: egress?.route.country ?? null }, counted !== undefined);
  }

  private async charge(reservation: Reservation, page: FetchedPage, egress: EgressContext): Promise<void> {
    try {
      await reservation.charge({ status: 200, pageStatus: page.status, failure: null, proxyCountry: egress.route.country ?? null });
    } catch (err) {
      if (err instanceof ChargeNotRecordedError) {
        if (err.uncertain) this.deps.logger.error({ requestId: err.requestId }, "a charge may have landed although its request was answered 500; check the key's balance");
        await reservation.refund({ status: 500, pageStatus: page.status, failure: 'the charge could not be recorded', proxyCountry: null }, false).catch(() => undefined);
      }
      throw err;
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
  private async openEgress(caller: Caller, request: ScrapeRequest, deadline: Deadline): Promise<EgressContext> {
    const { type, country, sessionId } = request.proxy;
    // A session is the key's own: named by the key's hash (never the secret), so it survives nothing but the key.
    const session = sessionId === undefined ? undefined : { key: caller.keyHash, id: sessionId };
    const egress = this.deps.egress.open(type, country, deadline, session);
    try {
      await egress.checkUrl(request.url);
    } catch (err) {
      if (err instanceof TargetForbiddenError) throw new InvalidValueError('url', `the URL is not allowed: ${err.reason}`, 'value_error.url.forbidden');
      // Any other failure (the name does not resolve yet) is the engine's to meet, retry and report.
    }
    return egress;
  }
}
