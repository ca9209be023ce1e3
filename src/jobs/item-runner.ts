import type { Logger } from 'pino';
import { decodeDocument, encodeDocument } from './document-codec.js';
import type { JobEventType, DocumentScraper, JobDocument, WebhookOutbox } from './job-ports.js';
import type { ItemRow, ItemSettled, ItemTransitions, JobRow, WithinWrite } from './job-store.js';
import type { ItemEntry } from './item-queues.js';
import { backoffMs, decide, errorCode, laterMs } from './retry-policy.js';
import type { JobMetrics } from '../observability/job-metrics.js';

const NO_EVENT: WithinWrite = async () => undefined;

export interface ItemRunnerOptions {
  transitions: ItemTransitions;
  scraper: DocumentScraper;
  outbox: WebhookOutbox;
  metrics: JobMetrics;
  logger: Logger;
  retryBaseMs: number;
  resultTtlMs: number;
  /** Aborted when the service stops: an item running then ends uncharged and is queued again. */
  stopping: AbortSignal;
  /** Told when an item finished either way (its window is free). */
  finished: () => void;
}

/**
 * Runs one queue entry: takes its item (a stale or finished one is skipped), scrapes it under the
 * item's own ledger id, and records the outcome. The document is stored before its charge (the
 * `answered` hook), so a crash anywhere leaves an item that runs again and is charged once.
 */
export class ItemRunner {
  constructor(private readonly o: ItemRunnerOptions) {}

  async run(entry: ItemEntry): Promise<void> {
    const started = await this.o.transitions.start(entry.j, entry.i, entry.d, Date.now());
    if (!started) return;
    const { job, item } = started;
    const began = performance.now();
    try {
      const result = await this.o.scraper.scrape({
        operation: job.kind === 'crawl' ? 'crawl' : 'batchScrape',
        caller: { keyHash: job.keyHash, clientAddress: job.clientAddress },
        url: item.url,
        options: job.options,
        requestId: item.requestId,
        job: { id: job.id, idx: item.idx },
        lastAttempt: item.attempts > job.maxRetries,
        discoverLinks: false,
        answered: async (document, cost) => this.o.transitions.answered(job.id, item.idx, await encodeDocument(document), cost, document.metadata.statusCode, Date.now()),
        cancelled: this.o.stopping,
      });
      await this.complete(job, item, result.document);
      this.o.metrics.itemFinished(job.kind, 'done', (performance.now() - began) / 1000);
    } catch (err) {
      await this.failed(job, item, err, began);
    } finally {
      this.o.finished();
    }
  }

  private async failed(job: JobRow, item: ItemRow, err: unknown, began: number): Promise<void> {
    const decision = decide(err);
    const now = Date.now();
    const failure = { code: errorCode(err), error: errorCode(err) === 'INTERNAL' ? 'internal error' : (err as Error).message };
    if (decision === 'charged') {
      // An earlier attempt was charged and its end lost: its stored document stands.
      if (item.document) return this.complete(job, item, await decodeDocument(item.document));
      this.o.logger.error({ job: job.id, idx: item.idx }, 'a charged job item has no stored document');
    }
    if (decision === 'later') return this.o.transitions.requeue(job.id, item.idx, now + laterMs(err), true, now);
    if (decision === 'retry' && item.attempts <= job.maxRetries) {
      this.o.metrics.itemRetried(job.kind);
      return this.o.transitions.requeue(job.id, item.idx, now + backoffMs(item.attempts, this.o.retryBaseMs), false, now);
    }
    this.o.metrics.itemFinished(job.kind, decision === 'job' ? 'refused' : 'failed', (performance.now() - began) / 1000);
    const expiresAt = now + this.o.resultTtlMs;
    this.settled(job, await this.o.transitions.fail(job.id, item.idx, failure, now, expiresAt, { page: NO_EVENT, completed: this.event(job, 'completed', []) }));
    // The key is refused: nothing more of the job can run.
    if (decision === 'job' && (await this.o.transitions.failJob(job.id, failure, now, expiresAt, this.event(job, 'failed', [], failure.error)))) {
      this.o.metrics.jobFinished(job.kind, 'failed');
      if (job.webhook) this.o.outbox.wake();
    }
  }

  private async complete(job: JobRow, item: ItemRow, document: JobDocument): Promise<void> {
    const now = Date.now();
    const events = { page: this.event(job, 'page', [document]), completed: this.event(job, 'completed', []) };
    this.settled(job, await this.o.transitions.complete(job.id, item.idx, now, now + this.o.resultTtlMs, events));
  }

  private settled(job: JobRow, { settled, jobCompleted }: ItemSettled): void {
    if (jobCompleted) this.o.metrics.jobFinished(job.kind, 'completed');
    if (settled && job.webhook) this.o.outbox.wake();
  }

  /** The job's event, recorded in the write's transaction when the job has a webhook. */
  private event(job: JobRow, type: JobEventType, data: JobDocument[], error?: string): WithinWrite {
    const subscription = job.webhook;
    if (!subscription) return NO_EVENT;
    return (trx) => this.o.outbox.enqueue({ apiKeyId: job.apiKeyId, jobId: job.id, kind: job.kind, subscription, type, data, ...(error ? { error } : {}) }, trx);
  }
}
