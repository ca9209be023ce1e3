import { expect } from 'chai';
import type { BatchSubmission, JobDocument } from '../../../src/jobs/job-ports.js';
import { inProcessServer, type InProcessServer } from '../../helpers/in-process-server.js';
import { InMemoryJobs } from '../../helpers/in-memory-jobs.js';
import { loadFirecrawlSdk, type FirecrawlSdk, type FirecrawlSdkClass } from '../../helpers/firecrawl-sdk.js';

/** A job port whose batches complete 1 s after their start, each URL a document. */
class FinishingJobs extends InMemoryJobs {
  override async submitBatch(submission: BatchSubmission): Promise<{ id: string }> {
    const made = await super.submitBatch(submission);
    setTimeout(() => {
      const documents = submission.urls.map((url, i): JobDocument => ({ markdown: `# page ${i}`, metadata: { sourceURL: url, url, statusCode: 200, proxyUsed: 'basic', creditsUsed: 1, scrapeId: `item-${i}` } }));
      this.give(made.id, documents, 'completed');
    }, 1_000).unref();
    return made;
  }
}

/**
 * Firecrawl's own JS SDK against the dialect, unchanged: scrape, a batch it polls and pages
 * through, its WebSocket watcher falling back to polling, and its errors, over a job port that
 * finishes batches on its own. The SDK comes from test/sdk (`npm ci --prefix test/sdk`, which
 * `npm test` runs); skipped where it is not installed.
 */
describe("Firecrawl's JS SDK against the dialect, in process", function () {
  this.timeout(60_000);
  let Firecrawl: FirecrawlSdkClass;
  let s: InProcessServer;
  let sdk: FirecrawlSdk;
  const PAGE = '<html><head><title>SDK page</title></head><body><main><h1>Hello SDK</h1><a href="/n">n</a></main></body></html>';

  before(async function () {
    const loaded = await loadFirecrawlSdk();
    if (!loaded) this.skip();
    Firecrawl = loaded;
    s = await inProcessServer({ '/page': { body: Buffer.from(PAGE), headers: [['Content-Type', 'text/html']] } }, {}, { jobs: new FinishingJobs() });
    sdk = new Firecrawl({ apiKey: await s.store.key({ credits: 1_000 }), apiUrl: s.base });
  });
  after(() => s?.close());

  it('scrape: the document in the formats asked', async () => {
    const doc = await sdk.scrape('http://127.0.0.1:8123/page', { formats: ['markdown', 'links'] });
    expect(doc.markdown).to.equal('# Hello SDK\n\n[n](http://127.0.0.1:8123/n)');
    expect(doc.links).to.deep.equal(['http://127.0.0.1:8123/n']);
    expect(doc.metadata).to.include({ title: 'SDK page', statusCode: 200, creditsUsed: 1 });
  });

  it('batchScrape: started, polled until completed, every page of documents followed', async () => {
    const urls = Array.from({ length: 150 }, (_, i) => `http://127.0.0.1:8123/p${i}`);
    const job = await sdk.batchScrape(urls, { options: { formats: ['markdown'] }, pollInterval: 1 });
    expect(job).to.include({ status: 'completed', total: 150, completed: 150, creditsUsed: 150 });
    expect(job.data).to.have.length(150);
  });

  it('the watcher: its WebSocket closed at once, it polls to the end', async () => {
    const started = await sdk.startBatchScrape(['http://127.0.0.1:8123/a', 'http://127.0.0.1:8123/b'], { options: { formats: ['markdown'] } });
    const watcher = sdk.watcher(started.id, { kind: 'batch', pollInterval: 1, timeout: 30 });
    const done = await new Promise<{ status: string; data: unknown[] }>((resolve, reject) => {
      watcher.on('done', resolve);
      watcher.on('error', (state) => reject(new Error(`the watcher failed: ${JSON.stringify(state)}`)));
      void watcher.start();
    });
    expect(done.status).to.equal('completed');
    expect(done.data).to.have.length(2);
  });

  it('errors reach the SDK as Firecrawl words them: an unsupported format, a wrong key', async () => {
    const refused = await sdk.scrape('http://127.0.0.1:8123/page', { formats: ['summary'] }).then(() => undefined, (e: unknown) => e as { status: number; message: string });
    expect(refused).to.include({ status: 400 });
    expect(refused?.message).to.match(/summary format is not supported/);
    const wrong = await new Firecrawl({ apiKey: 'sg_not_a_key', apiUrl: s.base }).scrape('http://127.0.0.1:8123/page').then(() => undefined, (e: unknown) => e as { status: number });
    expect(wrong).to.include({ status: 401 });
  });
});
