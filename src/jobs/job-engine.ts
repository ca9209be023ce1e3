import type { Caller } from '../scrape/scrape-service.js';
import { JobNotFoundError, JobRefusedError } from './job-errors.js';
import { isJobId, newJobId } from './job-id.js';
import { decodeDocument } from './document-codec.js';
import type { BatchSubmission, CrawlSubmission, DocumentScraper, JobErrors, JobKind, JobPage, Jobs, JobSummary, WebhookOutbox } from './job-ports.js';
import type { JobRecords, JobRow } from './job-store.js';
import type { JobMetrics } from '../observability/job-metrics.js';

export interface JobEngineOptions {
  records: JobRecords;
  scraper: DocumentScraper;
  outbox: WebhookOutbox;
  metrics: JobMetrics;
  /** The key a caller's secret names (refusing an unknown key, or a caller it may not be used from). */
  keyOf: (caller: Caller) => Promise<{ id: number }>;
  /** Items were recorded: hand them out. */
  submitted: () => void;
  resultTtlMs: number;
  batchMaxUrls: number;
  maxRetries: number;
}

/** A page answers at most this many documents, and at most this much of their JSON. */
export const PAGE_MAX_DOCUMENTS = 100;
export const PAGE_MAX_BYTES = 10 * 1024 * 1024;
/** An idempotency key answers the job it made for this long. */
const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/**
 * The job engine as the edge sees it (jobs/job-ports.ts `Jobs`): a submission is recorded whole,
 * with its `started` event, in one transaction, then handed out by the dispatcher; results are
 * read back from the database, a key's own only.
 */
export class JobEngine implements Jobs {
  constructor(private readonly o: JobEngineOptions) {}

  async submitBatch(submission: BatchSubmission): Promise<{ id: string }> {
    const { urls } = submission;
    if (urls.length === 0) throw new JobRefusedError('A batch needs at least one URL.');
    if (urls.length > this.o.batchMaxUrls) throw new JobRefusedError(`A batch takes at most ${this.o.batchMaxUrls} URLs; this one has ${urls.length}.`);
    const key = await this.o.keyOf(submission.caller);
    const now = Date.now();
    const job = {
      id: newJobId(now), kind: 'batch_scrape' as const, apiKeyId: key.id, engine: this.o.scraper.engineOf(submission.options), url: undefined,
      options: submission.options, webhook: submission.webhook, clientAddress: submission.caller.clientAddress, maxConcurrency: submission.maxConcurrency,
      maxRetries: submission.maxRetries ?? this.o.maxRetries, total: urls.length, createdAt: now, expiresAt: now + this.o.resultTtlMs,
      idempotencyKey: submission.idempotencyKey,
    };
    const subscription = submission.webhook;
    const { id, created } = await this.o.records.create(job, urls, async (trx) => {
      if (subscription) await this.o.outbox.enqueue({ apiKeyId: key.id, jobId: job.id, kind: job.kind, subscription, type: 'started', data: [] }, trx);
    }, IDEMPOTENCY_WINDOW_MS);
    if (created) {
      this.o.submitted();
      if (subscription) this.o.outbox.wake();
    }
    return { id };
  }

  async submitCrawl(submission: CrawlSubmission): Promise<{ id: string }> {
    const key = await this.o.keyOf(submission.caller);
    const now = Date.now();
    const job = {
      id: newJobId(now), kind: 'crawl' as const, apiKeyId: key.id, engine: this.o.scraper.engineOf(submission.options), url: submission.url,
      options: submission.options, webhook: submission.webhook, clientAddress: submission.caller.clientAddress, maxConcurrency: submission.maxConcurrency,
      maxRetries: this.o.maxRetries, total: 1, createdAt: now, expiresAt: now + this.o.resultTtlMs, idempotencyKey: submission.idempotencyKey,
    };
    const subscription = submission.webhook;
    const { id, created } = await this.o.records.create(job, [submission.url], async (trx) => {
      await submission.seed(trx, job.id);
      if (subscription) await this.o.outbox.enqueue({ apiKeyId: key.id, jobId: job.id, kind: job.kind, subscription, type: 'started', data: [] }, trx);
    }, IDEMPOTENCY_WINDOW_MS);
    if (created) {
      this.o.submitted();
      if (subscription) this.o.outbox.wake();
    }
    return { id };
  }

  async page(caller: Caller, kind: JobKind, id: string, range: { skip: number; limit: number | undefined }): Promise<JobPage> {
    const job = await this.own(caller, kind, id);
    const limit = Math.min(range.limit ?? PAGE_MAX_DOCUMENTS, PAGE_MAX_DOCUMENTS);
    const finished = await this.o.records.documents(job.id, kind, range.skip, limit, PAGE_MAX_BYTES);
    const documents = await Promise.all(finished.map((f) => decodeDocument(f.document)));
    const shown = range.skip + documents.length;
    return {
      id: job.id, kind: job.kind, status: job.status, total: job.total, completed: job.doneCount, creditsUsed: job.creditsUsed,
      createdAt: new Date(job.createdAt), expiresAt: new Date(job.expiresAt), completedAt: job.finishedAt === undefined ? undefined : new Date(job.finishedAt),
      documents, nextSkip: job.doneCount > shown && documents.length > 0 ? shown : undefined,
    };
  }

  async errors(caller: Caller, kind: JobKind, id: string): Promise<JobErrors> {
    const job = await this.own(caller, kind, id);
    return { errors: await this.o.records.errors(job.id, kind), robotsBlocked: [] };
  }

  async cancel(caller: Caller, kind: JobKind, id: string): Promise<void> {
    const job = await this.own(caller, kind, id);
    const now = Date.now();
    if (await this.o.records.cancel(job.id, kind, now, now + this.o.resultTtlMs)) this.o.metrics.jobFinished(job.kind, 'cancelled');
  }

  async active(caller: Caller, kind: JobKind): Promise<JobSummary[]> {
    const key = await this.o.keyOf(caller);
    return this.o.records.summaries(key.id, { kind, status: 'scraping', limit: 100 });
  }

  /**
   * The caller's job of this kind: another key's, the other kind's, an unknown or a pruned one is
   * not found alike (a batch is not read or cancelled through the crawl paths); a job past its TTL is expired.
   */
  private async own(caller: Caller, kind: JobKind, id: string): Promise<JobRow> {
    const key = await this.o.keyOf(caller);
    if (!isJobId(id)) throw new JobNotFoundError();
    const job = await this.o.records.find(key.id, kind, id);
    if (!job) throw new JobNotFoundError();
    const now = Date.now();
    // A job still running never expires: its results are kept for the TTL after its last change.
    if (job.status === 'scraping') return { ...job, expiresAt: Math.max(job.expiresAt, now + this.o.resultTtlMs) };
    if (job.expiresAt <= now) throw new JobNotFoundError(true);
    return job;
  }
}
