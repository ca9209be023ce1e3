import type { Knex } from 'knex';
import type { JobKind, JobStatus, JobSummary, JobError, StoredScrapeOptions, WebhookSubscription } from './job-ports.js';

/**
 * What the job engine keeps in the database every instance shares (store/jobs/ holds the SQL).
 * Everything durable lives here; Redis only says which items are handed to a worker.
 */

/** Runs inside a write's transaction, so that what it records (a webhook event) is durable exactly when the write is. */
export type WithinWrite = (trx: Knex.Transaction) => Promise<void>;

export interface JobRow {
  id: string;
  kind: JobKind;
  apiKeyId: number;
  keyHash: string;
  status: JobStatus;
  engine: 'plain' | 'browser';
  url: string | undefined;
  options: StoredScrapeOptions;
  webhook: WebhookSubscription | undefined;
  clientAddress: string;
  maxConcurrency: number | undefined;
  maxRetries: number;
  total: number;
  doneCount: number;
  failedCount: number;
  creditsUsed: number;
  error: string | undefined;
  createdAt: number;
  finishedAt: number | undefined;
  expiresAt: number;
}

export type NewJob = Omit<JobRow, 'status' | 'doneCount' | 'failedCount' | 'creditsUsed' | 'error' | 'finishedAt' | 'keyHash'> & {
  idempotencyKey: string | undefined;
};

export interface ItemRow {
  jobId: string;
  idx: number;
  requestId: string;
  apiKeyId: number;
  url: string;
  state: 'queued' | 'dispatched' | 'running' | 'answered' | 'done' | 'failed' | 'cancelled';
  attempts: number;
  dispatches: number;
  cost: number | undefined;
  /** The stored document (compressed), once answered. */
  document: Buffer | undefined;
}

export interface FinishedDocument {
  doneSeq: number;
  document: Buffer;
}

/** Jobs as the edge sees them: made, read, cancelled, pruned. */
export interface JobRecords {
  /**
   * The job and its items, all or nothing; an idempotency key met again answers the job it made
   * (`created: false`). A key is scoped by its API key and the job's kind: the same value given to
   * a batch and to a crawl makes two jobs.
   */
  create(job: NewJob, urls: string[], within: WithinWrite, idempotencyWindowMs: number): Promise<{ id: string; created: boolean }>;
  /**
   * The job of this key and kind, unless unknown or pruned (the engine tells a job past its TTL
   * from its `expiresAt`). A job of the other kind is not found: a batch's id names no crawl.
   */
  find(apiKeyId: number, kind: JobKind, id: string): Promise<JobRow | undefined>;
  /** Finished documents after `skip`, in the order they finished: at most `limit`, and at most `maxBytes` of JSON unless the first alone is more. None for a job of the other kind. */
  documents(jobId: string, kind: JobKind, skip: number, limit: number, maxBytes: number): Promise<FinishedDocument[]>;
  /** The job's failed items; none for a job of the other kind. */
  errors(jobId: string, kind: JobKind): Promise<JobError[]>;
  /** Items not started are cancelled; false when the job was no longer running, or is of the other kind. */
  cancel(jobId: string, kind: JobKind, now: number, expiresAt: number): Promise<boolean>;
  summaries(apiKeyId: number, filter: { kind?: JobKind; status?: JobStatus; limit: number }): Promise<JobSummary[]>;
  /** Deletes up to `limit` jobs expired at `now`, with their items: how many went. */
  prune(now: number, limit: number): Promise<number>;
}

/** An item's way through its states (jobs/README.md). */
export interface ItemTransitions {
  /** Takes an item handed out as dispatch `dispatch` (stale or finished: undefined), counting the attempt. */
  start(jobId: string, idx: number, dispatch: number, now: number): Promise<{ job: JobRow; item: ItemRow } | undefined>;
  /** The document made, before its charge: stored compressed, with its size as JSON. */
  answered(jobId: string, idx: number, document: { stored: Buffer; bytes: number }, cost: number, statusCode: number, now: number): Promise<void>;
  /** Done with its stored document, numbered in finishing order, credited to the job. */
  complete(jobId: string, idx: number, now: number, expiresAt: number, events: ItemEvents): Promise<ItemSettled>;
  /** Back to the queue, not before `notBefore` (cancelled instead if its job no longer runs); `uncount`: this attempt does not count against its retries. */
  requeue(jobId: string, idx: number, notBefore: number, uncount: boolean, now: number): Promise<void>;
  fail(jobId: string, idx: number, failure: { code: string; error: string; statusCode?: number }, now: number, expiresAt: number, events: ItemEvents): Promise<ItemSettled>;
  /** Every item not yet finished fails with `failure`, and the job fails (a refusal of its key). */
  failJob(jobId: string, failure: { code: string; error: string }, now: number, expiresAt: number, within: WithinWrite): Promise<boolean>;
}

/** The events an item's end may record, each in its transaction: its page, and its job's completion when it was the last. */
export interface ItemEvents {
  page: WithinWrite;
  completed: WithinWrite;
}

/** `settled`: this call finished the item (false: it was finished already); `jobCompleted`: and with it, its job. */
export interface ItemSettled {
  settled: boolean;
  jobCompleted: boolean;
}

export interface ScrapingJob {
  id: string;
  apiKeyId: number;
  engine: 'plain' | 'browser';
  maxConcurrency: number | undefined;
  /** The key's plan cap (null: none). */
  keyMaxConcurrency: number | undefined;
  inFlight: number;
}

export interface DueItem {
  jobId: string;
  idx: number;
  dispatches: number;
}

/** What the dispatcher reads and marks (jobs/dispatcher.ts). */
export interface DispatchQueries {
  /** Jobs still scraping, with their items handed out now; and per key, every item it has handed out. */
  scraping(): Promise<{ jobs: ScrapingJob[]; keyInFlight: Map<number, number> }>;
  /** Up to `limit` items of the job due at `now`, in order. */
  due(jobId: string, now: number, limit: number): Promise<DueItem[]>;
  /** queued → dispatched, each one's dispatch count raised: the items actually marked. */
  markDispatched(items: DueItem[], now: number): Promise<DueItem[]>;
  /** dispatched → queued again (the queue could not take them). */
  unmark(items: DueItem[], now: number): Promise<void>;
  /** Items handed out and untouched since `before`: a queue entry may be lost. */
  handedOutSince(before: number, limit: number): Promise<Array<DueItem & { state: ItemRow['state']; engine: 'plain' | 'browser' }>>;
}
