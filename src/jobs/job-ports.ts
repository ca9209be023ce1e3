import type { Knex } from 'knex';
import type { Caller } from '../scrape/scrape-service.js';

/**
 * The job engine's boundaries: what the HTTP edge asks of it (Jobs), and what it asks of the
 * Firecrawl dialect (DocumentScraper) and of the webhooks (WebhookOutbox, WebhookPolicy). Each
 * side is built in its own folder; the composition root (server/) joins them.
 */

/** A Firecrawl document's metadata, as stored and answered (integers where the SDKs validate them). */
export interface DocumentMetadata {
  /** The URL as requested. */
  sourceURL: string;
  /** The final URL, after redirects. */
  url: string;
  statusCode: number;
  contentType?: string;
  title?: string;
  description?: string;
  language?: string;
  proxyUsed: 'basic' | 'stealth';
  creditsUsed: number;
  /** The request's ledger id (for a job item, the item's id). */
  scrapeId: string;
  error?: string;
  /** A crawled page: its link hops from the start page (sitemap URLs count 0), and the page that linked it. */
  depth?: number;
  foundOn?: string;
  [field: string]: unknown;
}

/** A Firecrawl document: the formats asked for, and the metadata. JSON throughout. */
export interface JobDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  images?: string[];
  screenshot?: string;
  metadata: DocumentMetadata;
  [format: string]: unknown;
}

/** A job's scrape options as validated at submission: stored as JSON, decoded again for every item. */
export type StoredScrapeOptions = Record<string, unknown>;

export type JobKind = 'batch_scrape' | 'crawl';

/** One item's scrape, as the job engine asks for it. */
export interface ItemScrape {
  operation: 'batchScrape' | 'crawl';
  caller: Caller;
  url: string;
  options: StoredScrapeOptions;
  /** The item's id: its ledger request id on every attempt (charged at most once, however often it runs). */
  requestId: string;
  /** Its job and place in it, when the job engine runs it (a crawl finds its rules by them without a query). */
  job?: { id: string; idx: number };
  /**
   * False while retries remain: a target's 5xx or 429 is then thrown as RetryablePageError
   * (jobs/retryable-page-error.ts) before anything is charged, so only the final outcome is.
   */
  lastAttempt: boolean;
  /** Also read the page's links (absolute, unique), whatever the formats: a crawl follows them. */
  discoverLinks: boolean;
  /**
   * Called once the document is made, before the charge: the engine stores it first, so that a
   * crash between the two can neither lose a charged document nor charge twice.
   */
  answered(document: JobDocument, cost: number): Promise<void>;
  /** Aborted when the service stops: the work ends, uncharged. */
  cancelled?: AbortSignal;
}

export interface ScrapedDocument {
  document: JobDocument;
  cost: number;
  /** The page's links, when `discoverLinks` asked for them. */
  links?: string[];
}

/** Makes one item into a document over the scrape service (the Firecrawl dialect implements it). */
export interface DocumentScraper {
  scrape(item: ItemScrape): Promise<ScrapedDocument>;
  /** The engine the options select, so the job engine queues the item where that engine's share is kept. */
  engineOf(options: StoredScrapeOptions): 'plain' | 'browser';
}

export type JobEventType = 'started' | 'page' | 'completed' | 'failed';

/** A webhook subscription as the submission gave it (a bare URL becomes every event, no headers). */
export interface WebhookSubscription {
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, string>;
  events: JobEventType[];
}

/** One event of a job, for its webhook. */
export interface JobEvent {
  apiKeyId: number;
  jobId: string;
  kind: JobKind;
  subscription: WebhookSubscription;
  type: JobEventType;
  /** `page`: the document; otherwise empty. */
  data: JobDocument[];
  error?: string;
}

/** The durable outbox of webhook deliveries (webhooks/ implements it). */
export interface WebhookOutbox {
  /**
   * Records the event's delivery, in `trx` when given, so that it is durable exactly when what it
   * reports is. Does nothing when the subscription does not want this event.
   */
  enqueue(event: JobEvent, trx?: Knex.Transaction): Promise<void>;
  /** Tells this instance's deliverer that deliveries were just recorded (after the commit). */
  wake(): void;
}

/** Whether a webhook URL may be called: the target policy, with WEBHOOK_ALLOW_CIDRS (webhooks/ implements it). */
export interface WebhookPolicy {
  /** Throws WebhookRefusedError (webhooks/) naming why the URL may not be called. */
  check(url: string): Promise<void>;
}

/** A batch as the edge hands it over: URLs already valid and allowed, options already validated. */
export interface BatchSubmission {
  caller: Caller;
  urls: string[];
  options: StoredScrapeOptions;
  webhook?: WebhookSubscription;
  /** The same key and value within 24 h answers the same batch (a crawl's keys are its own). */
  idempotencyKey?: string;
  /** Items of this job at once (besides the plan's and the service's caps). */
  maxConcurrency?: number;
  /** Retries of a failed item; the service's default when undefined. */
  maxRetries?: number;
}

/**
 * A crawl as the edge hands it over: its start URL allowed, its options validated; `seed` records
 * what the crawl keeps beside its job (its rules, its frontier's first URL) in the job's own
 * transaction (jobs/crawl/).
 */
export interface CrawlSubmission {
  caller: Caller;
  url: string;
  options: StoredScrapeOptions;
  webhook?: WebhookSubscription;
  idempotencyKey?: string;
  maxConcurrency?: number;
  seed: (trx: Knex.Transaction, jobId: string) => Promise<void>;
}

export type JobStatus = 'scraping' | 'completed' | 'failed' | 'cancelled';

/** One page of a job's state and finished documents. */
export interface JobPage {
  id: string;
  kind: JobKind;
  status: JobStatus;
  total: number;
  completed: number;
  creditsUsed: number;
  createdAt: Date;
  expiresAt: Date;
  completedAt: Date | undefined;
  documents: JobDocument[];
  /** Where the next page starts, when more finished documents exist beyond this one. */
  nextSkip: number | undefined;
}

export interface JobError {
  id: string;
  url: string;
  code: string;
  error: string;
  timestamp: string;
}

export interface JobErrors {
  errors: JobError[];
  robotsBlocked: string[];
}

/** A job's summary, for lists (the dashboard, the admin API, `/v2/crawl/active`). */
export interface JobSummary {
  id: string;
  kind: JobKind;
  status: JobStatus;
  url: string | undefined;
  total: number;
  completed: number;
  failed: number;
  creditsUsed: number;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * What the edge asks of the job engine. Refusals: the billing's (an invalid key, an IP
 * restriction, no credits left), JobNotFoundError for an unknown, expired or another key's job.
 */
export interface Jobs {
  submitBatch(submission: BatchSubmission): Promise<{ id: string }>;
  /** A crawl: a job of one item (its start URL) that its pages grow as they are crawled. */
  submitCrawl(submission: CrawlSubmission): Promise<{ id: string }>;
  /**
   * `limit`: documents at most (100 by default); a page also stops at 10 MiB of documents.
   * `kind` is the kind the path names: a job of the other kind is not found, as an unknown id.
   */
  page(caller: Caller, kind: JobKind, id: string, range: { skip: number; limit: number | undefined }): Promise<JobPage>;
  errors(caller: Caller, kind: JobKind, id: string): Promise<JobErrors>;
  /** Items not started are dropped, uncharged; running ones finish and are charged. */
  cancel(caller: Caller, kind: JobKind, id: string): Promise<void>;
  /** The key's jobs still running, newest first. */
  active(caller: Caller, kind: JobKind): Promise<JobSummary[]>;
}
