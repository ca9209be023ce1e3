import { expect } from 'chai';
import pino from 'pino';
import { hashApiKey, Billing } from '../../src/billing/billing.js';
import { DeferredWrites } from '../../src/billing/deferred-writes.js';
import { DEFAULT_CATALOG } from '../../src/config/catalog.js';
import { HtmlWorkBusyError, HtmlWorkTooCostlyError } from '../../src/content/html-work/html-work-errors.js';
import { Egress } from '../../src/egress/egress.js';
import { DeadlineExceededError, TargetUnreachableError, TargetUnusableError } from '../../src/egress/fetch-errors.js';
import { DirectEgress } from '../../src/egress/proxies/proxy-provider.js';
import { BrowserFailureError, PageCrashedError } from '../../src/engines/engine-errors.js';
import { EngineRegistry } from '../../src/engines/engine-registry.js';
import type { ScrapeRequest } from '../../src/engines/scrape-request.js';
import { Metrics } from '../../src/observability/metrics.js';
import { NEEDS_NOTHING, type Answer } from '../../src/scrape/answer.js';
import { WallDetector } from '../../src/scrape/antibot/wall-detector.js';
import { OUTCOME_STATUS } from '../../src/scrape/outcome.js';
import { ScrapeService } from '../../src/scrape/scrape-service.js';
import { SyncDemand } from '../../src/scrape/sync-demand.js';
import { targetPolicy } from '../helpers/egress.js';
import { FakeBillingStore } from '../helpers/fake-billing-store.js';
import { FakeEngine, type FakeBehaviour } from '../helpers/fake-engine.js';

const T0 = Date.now();
const KEY = 'sg_service_test_key';
const OK: Answer<string> = { needs: NEEDS_NOTHING, htmlWork: false, build: (page) => page.body.toString('utf8') };

const CLOUDFLARE = { status: 403, headers: [['Server', 'cloudflare'], ['cf-mitigated', 'challenge']] as Array<[string, string]>, body: Buffer.from('<title>Just a moment...</title>') };

function request(path: string, part: Partial<ScrapeRequest> = {}): ScrapeRequest {
  return {
    url: new URL(`http://127.0.0.1${path}`),
    method: 'GET',
    headers: {},
    body: undefined,
    cookies: [],
    browser: false,
    returnPageSource: false,
    jsSnippet: undefined,
    waitForSelector: undefined,
    blockResources: [],
    proxy: { type: 'datacenter', country: undefined, sessionId: undefined },
    timeoutMs: 5_000,
    capture: undefined,
    ...part,
  };
}

/**
 * The scrape service on its own: the billing's real rules over the in-memory store, a scripted
 * engine, the real egress (loopback allowed). Each outcome the ledger records, and what it records.
 */
/** Counts the synchronous requests that began as demand, and those in flight now. */
class CountedDemand extends SyncDemand {
  begun = 0;

  override begin(): () => void {
    this.begun++;
    return super.begin();
  }
}

describe('ScrapeService: every outcome, as the ledger records it', () => {
  let store: FakeBillingStore;
  let demand: CountedDemand;
  let stopping: AbortController;
  let refusals: number[];

  function service(paths: Record<string, FakeBehaviour>, credits = 1_000): ScrapeService {
    store = new FakeBillingStore();
    store.add(hashApiKey(KEY), { creditsTotal: credits, periodStart: T0 - 1000, periodEnd: T0 + 86_400_000 });
    stopping = new AbortController();
    refusals = [];
    demand = new CountedDemand();
    const engine = new FakeEngine(paths);
    const logger = pino({ level: 'silent' });
    return new ScrapeService({
      billing: new Billing({ store, deferred: new DeferredWrites(), budget: { allowance: 100, windowMs: 3_600_000 }, leaseGraceMs: 1_000, instanceId: 'test' }),
      engines: new EngineRegistry({ plain: engine, browser: engine }),
      egress: new Egress(targetPolicy({ allowPrivate: true }), new DirectEgress(), logger),
      walls: WallDetector.default(),
      costs: DEFAULT_CATALOG.costs,
      metrics: new Metrics(),
      stopping: stopping.signal,
      refusals: { count: (_id, status) => refusals.push(status) },
      logger,
      demand,
    });
  }

  const call = <T>(svc: ScrapeService, path: string, answer: Answer<T>, part: Partial<ScrapeRequest> = {}, cancelled?: AbortSignal) =>
    svc.scrape({ operation: 'test', caller: { keyHash: hashApiKey(KEY), clientAddress: '127.0.0.1' }, request: request(path, part), answer, cancelled });

  const onlyRow = () => {
    expect(store.ledger.size).to.equal(1);
    return [...store.ledger.values()][0];
  };

  it('ok: charged at its cost, the answer made from the page', async () => {
    const result = await call(service({}), '/page', OK);
    expect(result.answer).to.contain('Hello fake');
    expect({ cost: result.cost, outcome: onlyRow().outcome, status: onlyRow().settlement?.status }).to.deep.equal({ cost: 1, outcome: 'charged', status: 200 });
  });

  const failures: Array<[string, FakeBehaviour, number, boolean]> = [
    ['target_unreachable', new TargetUnreachableError('connection refused'), 404, true],
    ['timeout', new DeadlineExceededError('too slow'), 404, true],
    ['target_unusable', new TargetUnusableError('not a page'), 404, true],
    ['page_crashed', new PageCrashedError('the renderer crashed'), 404, true],
    ['walled', CLOUDFLARE, 423, true],
    ['browser_failed', new BrowserFailureError('chromedriver died', true), 500, false],
    ['internal (a bug)', new TypeError('undefined is not a function'), 500, false],
  ];
  for (const [outcome, behaviour, status, counted] of failures) {
    it(`${outcome}: refunded, recorded as ${status}, ${counted ? '' : 'not '}counted against a browser request's budget`, async () => {
      const svc = service({ '/x': behaviour });
      const err = await call(svc, '/x', OK, { browser: true }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      const row = onlyRow();
      expect({ outcome: row.outcome, status: row.settlement?.status, counted: row.countedFailure }).to.deep.equal({ outcome: 'refunded', status, counted });
      if (outcome.startsWith('internal')) expect(row.settlement?.failure).to.equal('a failure inside the service');
      expect([...store.keys.values()][0].creditsRemaining).to.equal(1_000);
    });
  }

  it('invalid_value: a URL the target policy refuses is a 422 before anything is fetched, refunded', async () => {
    const svc = service({});
    const err = (await call(svc, '/x', OK, { url: new URL('http://0.0.0.0:25/') }).catch((e: unknown) => e)) as { outcome?: string };
    expect(err.outcome).to.equal('invalid_value');
    expect({ outcome: onlyRow().outcome, status: onlyRow().settlement?.status }).to.deep.equal({ outcome: 'refunded', status: 422 });
  });

  it('too_costly and busy: HTML work past a cap is a counted 422, a full queue an uncounted 429', async () => {
    const costly: Answer<string> = { needs: NEEDS_NOTHING, htmlWork: true, build: () => Promise.reject(new HtmlWorkTooCostlyError('url', 'too costly')) };
    let svc = service({});
    await call(svc, '/page', costly).catch(() => undefined);
    expect({ status: onlyRow().settlement?.status, counted: onlyRow().countedFailure }).to.deep.equal({ status: 422, counted: true });
    const busy: Answer<string> = { needs: NEEDS_NOTHING, htmlWork: true, build: () => Promise.reject(new HtmlWorkBusyError('key', 1)) };
    svc = service({});
    await call(svc, '/page', busy).catch(() => undefined);
    expect({ status: onlyRow().settlement?.status, counted: onlyRow().countedFailure }).to.deep.equal({ status: 429, counted: false });
  });

  it('cancelled: a caller gone before the charge is refunded as 499, its engine told to stop; one gone before anything reserves nothing', async () => {
    let svc = service({ '/hang': 'hang' });
    const gone = new AbortController();
    const pending = call(svc, '/hang', OK, {}, gone.signal).catch((e: unknown) => e);
    setTimeout(() => gone.abort(), 50);
    expect(((await pending) as { outcome?: string }).outcome).to.equal('cancelled');
    expect({ outcome: onlyRow().outcome, status: onlyRow().settlement?.status }).to.deep.equal({ outcome: 'refunded', status: OUTCOME_STATUS.cancelled });
    svc = service({});
    const early = new AbortController();
    early.abort();
    await call(svc, '/page', OK, {}, early.signal).catch(() => undefined);
    expect(store.ledger.size).to.equal(0);
  });

  it('shutting_down: a request still running when the grace ends is refunded as 500', async () => {
    const svc = service({ '/hang': 'hang' });
    const pending = call(svc, '/hang', OK).catch((e: unknown) => e);
    setTimeout(() => stopping.abort(), 50);
    expect(((await pending) as { outcome?: string }).outcome).to.equal('shutting_down');
    expect({ outcome: onlyRow().outcome, status: onlyRow().settlement?.status }).to.deep.equal({ outcome: 'refunded', status: 500 });
  });

  it('refusals (invalid key, out of credits) reserve nothing; a known key\'s refusal is counted by its status', async () => {
    let svc = service({});
    const unknown = (await svc.scrape({ operation: 'test', caller: { keyHash: hashApiKey('sg_nobody'), clientAddress: '127.0.0.1' }, request: request('/page'), answer: OK }).catch((e: unknown) => e)) as { outcome?: string };
    expect(unknown.outcome).to.equal('invalid_key');
    svc = service({}, 5);
    const broke = (await call(svc, '/page', OK, { browser: true }).catch((e: unknown) => e)) as { outcome?: string };
    expect(broke.outcome).to.equal('out_of_credits');
    expect(store.ledger.size).to.equal(0);
    expect(refusals).to.deep.equal([403]);
  });

  it('synchronous demand: begun only once the ledger admitted the request, ended on every way out', async () => {
    // Refused by the ledger (an unknown key, no credits): never in flight, so job items are not held back by it.
    let svc = service({}, 5);
    await svc.scrape({ operation: 'test', caller: { keyHash: hashApiKey('sg_nobody'), clientAddress: '127.0.0.1' }, request: request('/page'), answer: OK }).catch(() => undefined);
    await call(svc, '/page', OK, { browser: true }).catch(() => undefined);
    expect({ begun: demand.begun, busy: demand.busy }).to.deep.equal({ begun: 0, busy: 0 });
    // Admitted: demand while it runs, whatever its end (an answer, a failure after the reservation, a shutdown).
    svc = service({ '/x': new TargetUnreachableError('connection refused'), '/hang': 'hang' });
    await call(svc, '/page', OK);
    await call(svc, '/x', OK).catch(() => undefined);
    const hanging = call(svc, '/hang', OK).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(demand.busy).to.equal(1);
    stopping.abort();
    await hanging;
    expect({ begun: demand.begun, busy: demand.busy }).to.deep.equal({ begun: 3, busy: 0 });
  });

  it('charge_not_recorded: a charge the store never takes is refunded and answered 500', async () => {
    const svc = service({});
    // The database's clock jumps past the row's settle limit while the answer is made: no charge can land.
    const late: Answer<string> = { ...OK, build: (page) => ((store.clock = () => Date.now() + 3_600_000), OK.build(page, { key: '' }) as string) };
    const err = (await call(svc, '/page', late, { timeoutMs: 1_000 }).catch((e: unknown) => e)) as { outcome?: string };
    expect(err.outcome).to.equal('charge_not_recorded');
    expect({ outcome: onlyRow().outcome, status: onlyRow().settlement?.status }).to.deep.equal({ outcome: 'refunded', status: 500 });
  });
});
