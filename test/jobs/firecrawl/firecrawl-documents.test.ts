import { expect } from 'chai';
import pino from 'pino';
import { Billing, hashApiKey } from '../../../src/billing/billing.js';
import { DeferredWrites } from '../../../src/billing/deferred-writes.js';
import { DEFAULT_CATALOG } from '../../../src/config/catalog.js';
import { HtmlWorkers } from '../../../src/content/html-work/html-workers.js';
import { Egress } from '../../../src/egress/egress.js';
import { DirectEgress } from '../../../src/egress/proxies/proxy-provider.js';
import { EngineRegistry } from '../../../src/engines/engine-registry.js';
import { FirecrawlDocuments } from '../../../src/jobs/firecrawl/firecrawl-documents.js';
import { storedOptions, type FirecrawlOptions } from '../../../src/jobs/firecrawl/firecrawl-options.js';
import type { ItemScrape, JobDocument } from '../../../src/jobs/job-ports.js';
import { RetryablePageError } from '../../../src/jobs/retryable-page-error.js';
import { Metrics } from '../../../src/observability/metrics.js';
import { WallDetector } from '../../../src/scrape/antibot/wall-detector.js';
import { ScrapeService } from '../../../src/scrape/scrape-service.js';
import { targetPolicy } from '../../helpers/egress.js';
import { FakeBillingStore } from '../../helpers/fake-billing-store.js';
import { FakeEngine } from '../../helpers/fake-engine.js';

const KEY = 'sg_documents_test_key';
const T0 = Date.now();

export const PLAIN_MARKDOWN: FirecrawlOptions = {
  formats: { markdown: true, html: false, rawHtml: false, links: false, images: false, screenshot: null, attributes: null },
  onlyMainContent: true,
  includeTags: [],
  excludeTags: [],
  removeBase64Images: true,
  headers: {},
  cookies: [],
  browser: false,
  mobile: false,
  waitForMs: 0,
  waitForSelector: null,
  jsSnippet: null,
  blockResources: [],
  proxy: 'basic',
  country: null,
  sessionId: null,
  timeoutMs: 5_000,
  extractRules: null,
  actions: [],
};

/** The document maker over the real scrape service and HTML workers, a scripted engine and the in-memory ledger. */
describe('FirecrawlDocuments: a job item made into a document, settled once', function () {
  this.timeout(20_000);
  let store: FakeBillingStore;
  let workers: HtmlWorkers;
  let documents: FirecrawlDocuments;

  before(() => {
    workers = new HtmlWorkers({ threads: 1 });
    store = new FakeBillingStore();
    store.add(hashApiKey(KEY), { creditsTotal: 1_000, periodStart: T0 - 1000, periodEnd: T0 + 86_400_000 });
    const engine = new FakeEngine({
      '/busy': { status: 503, body: Buffer.from('busy') },
      '/slow-down': { status: 429, body: Buffer.from('slow down') },
      '/gone': { status: 404, body: Buffer.from('<title>Gone</title><p>gone</p>') },
      '/forbidden': { status: 403, body: Buffer.from('<title>No</title>') },
      '/links': { body: Buffer.from('<a href="/a">a</a><a href="/b">b</a><a href="/a#x">a again</a>') },
    });
    const logger = pino({ level: 'silent' });
    const service = new ScrapeService({
      billing: new Billing({ store, deferred: new DeferredWrites(), budget: { allowance: 100, windowMs: 3_600_000 }, leaseGraceMs: 1_000, instanceId: 'test' }),
      engines: new EngineRegistry({ plain: engine, browser: engine }),
      egress: new Egress(targetPolicy({ allowPrivate: true }), new DirectEgress(), logger),
      walls: WallDetector.default(),
      costs: DEFAULT_CATALOG.costs,
      metrics: new Metrics(),
      stopping: new AbortController().signal,
      logger,
    });
    documents = new FirecrawlDocuments({ service, workers });
  });
  after(() => workers.close());

  let n = 0;
  function item(path: string, part: Partial<ItemScrape> = {}, options: FirecrawlOptions = PLAIN_MARKDOWN): ItemScrape & { stored: Array<[JobDocument, number]> } {
    const stored: Array<[JobDocument, number]> = [];
    return {
      operation: 'batchScrape',
      caller: { keyHash: hashApiKey(KEY), clientAddress: '127.0.0.1' },
      url: `http://127.0.0.1:8123${path}`,
      options: storedOptions(options),
      requestId: `item-${++n}`,
      lastAttempt: true,
      discoverLinks: false,
      answered: async (document, cost) => void stored.push([document, cost]),
      stored,
      ...part,
    };
  }

  for (const [path, status] of [['/busy', 503], ['/slow-down', 429]] as const) {
    it(`a target ${status} while retries remain: RetryablePageError, refunded, nothing stored`, async () => {
      const first = item(path, { lastAttempt: false });
      const err = await documents.scrape(first).then(() => undefined, (e: unknown) => e);
      expect(err).to.be.instanceOf(RetryablePageError).and.include({ status });
      expect(first.stored).to.deep.equal([]);
      expect(store.ledger.get(first.requestId)?.outcome).to.equal('refunded');
      // The last attempt, under the same id: a document of the page as it is, charged once.
      const last = { ...first, lastAttempt: true };
      const made = await documents.scrape(last);
      expect(made.document.metadata).to.include({ statusCode: status, creditsUsed: 1, scrapeId: first.requestId, error: `the target answered ${status}` });
      expect(store.ledger.get(first.requestId)?.outcome).to.equal('charged');
      expect(first.stored.map(([, cost]) => cost)).to.deep.equal([1]);
    });
  }

  it('a 404 is never retried: a document with its status, even while retries remain', async () => {
    const made = await documents.scrape(item('/gone', { lastAttempt: false }));
    expect(made.document.metadata).to.include({ statusCode: 404, title: 'Gone' });
  });

  it('discoverLinks returns the links (absolute, unique) whatever the formats; the document holds them only when asked', async () => {
    const made = await documents.scrape(item('/links', { discoverLinks: true }));
    expect(made.links).to.deep.equal(['http://127.0.0.1:8123/a', 'http://127.0.0.1:8123/b']);
    expect(made.document).not.to.have.property('links');
  });

  it('proxy auto: a 403 tries a residential proxy; without one here, the datacenter answer stands, charged once', async () => {
    const auto = item('/forbidden', {}, { ...PLAIN_MARKDOWN, proxy: 'auto' });
    const made = await documents.scrape(auto);
    expect(made.document.metadata).to.include({ statusCode: 403, proxyUsed: 'basic', creditsUsed: 1 });
    expect(store.ledger.get(auto.requestId)?.outcome).to.equal('charged');
    expect(auto.stored).to.have.length(1);
  });

  it('proxy stealth without residential proxies: refused, uncharged', async () => {
    const stealth = item('/gone', {}, { ...PLAIN_MARKDOWN, proxy: 'stealth' });
    const err = await documents.scrape(stealth).then(() => undefined, (e: unknown) => e);
    expect((err as Error).message).to.match(/no residential proxies/);
    expect(store.ledger.get(stealth.requestId)?.outcome ?? 'refunded').to.equal('refunded');
  });

  it('the engine the options choose', () => {
    expect(documents.engineOf(storedOptions(PLAIN_MARKDOWN))).to.equal('plain');
    expect(documents.engineOf(storedOptions({ ...PLAIN_MARKDOWN, browser: true }))).to.equal('browser');
  });
});
