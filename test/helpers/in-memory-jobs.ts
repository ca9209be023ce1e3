import { randomUUID } from 'node:crypto';
import { JobNotFoundError } from '../../src/jobs/job-errors.js';
import type { BatchSubmission, JobDocument, JobErrors, JobKind, JobPage, Jobs, JobStatus, JobSummary } from '../../src/jobs/job-ports.js';
import type { Caller } from '../../src/scrape/scrape-service.js';

interface HeldJob {
  id: string;
  keyHash: string;
  submission: BatchSubmission;
  status: JobStatus;
  documents: JobDocument[];
  errors: JobErrors;
  createdAt: Date;
}

/**
 * The job engine's port kept in memory, for the edge's fast tests: it records what was submitted
 * and answers pages of the documents a test gives it, by key (another key's job is not found).
 */
export class InMemoryJobs implements Jobs {
  readonly submitted: BatchSubmission[] = [];
  private readonly jobs = new Map<string, HeldJob>();
  private readonly byIdempotency = new Map<string, string>();

  async submitBatch(submission: BatchSubmission): Promise<{ id: string }> {
    const idempotent = submission.idempotencyKey === undefined ? undefined : `${submission.caller.keyHash}\u0000${submission.idempotencyKey}`;
    const earlier = idempotent === undefined ? undefined : this.byIdempotency.get(idempotent);
    if (earlier !== undefined) return { id: earlier };
    this.submitted.push(submission);
    const id = randomUUID();
    this.jobs.set(id, { id, keyHash: submission.caller.keyHash, submission, status: 'scraping', documents: [], errors: { errors: [], robotsBlocked: [] }, createdAt: new Date() });
    if (idempotent !== undefined) this.byIdempotency.set(idempotent, id);
    return { id };
  }

  async submitCrawl(): Promise<{ id: string }> {
    throw new Error('InMemoryJobs takes no crawls: crawls are tested on the real engine (test/integration/firecrawl-crawl.test.ts)');
  }

  /** A test's hook: the job's documents so far, and its state. */
  give(id: string, documents: JobDocument[], status: JobStatus = 'completed', errors: JobErrors['errors'] = []): void {
    const job = this.jobs.get(id);
    if (!job) throw new Error(`no job ${id}`);
    Object.assign(job, { documents, status, errors: { errors, robotsBlocked: [] } });
  }

  async page(caller: Caller, kind: JobKind, id: string, range: { skip: number; limit: number | undefined }): Promise<JobPage> {
    const job = this.own(caller, kind, id);
    const limit = range.limit ?? 100;
    const documents = job.documents.slice(range.skip, range.skip + limit);
    const end = range.skip + documents.length;
    return {
      id,
      kind: 'batch_scrape',
      status: job.status,
      total: job.submission.urls.length,
      completed: job.documents.length,
      creditsUsed: job.documents.reduce((sum, d) => sum + d.metadata.creditsUsed, 0),
      createdAt: job.createdAt,
      expiresAt: new Date(job.createdAt.getTime() + 86_400_000),
      completedAt: job.status === 'scraping' ? undefined : new Date(),
      documents,
      nextSkip: end < job.documents.length ? end : undefined,
    };
  }

  async errors(caller: Caller, kind: JobKind, id: string): Promise<JobErrors> {
    return this.own(caller, kind, id).errors;
  }

  async cancel(caller: Caller, kind: JobKind, id: string): Promise<void> {
    this.own(caller, kind, id).status = 'cancelled';
  }

  async active(caller: Caller, kind: JobKind): Promise<JobSummary[]> {
    return [...this.jobs.values()]
      .filter((job) => job.keyHash === caller.keyHash && job.status === 'scraping' && kind === 'batch_scrape')
      .map((job) => ({ id: job.id, kind, status: job.status, url: undefined, total: job.submission.urls.length, completed: job.documents.length, failed: 0, creditsUsed: 0, createdAt: job.createdAt, expiresAt: new Date(job.createdAt.getTime() + 86_400_000) }));
  }

  /** Every job held is a batch: asked for as a crawl, it is not found, as the real engine answers. */
  private own(caller: Caller, kind: JobKind, id: string): HeldJob {
    const job = this.jobs.get(id);
    if (!job || job.keyHash !== caller.keyHash || kind !== 'batch_scrape') throw new JobNotFoundError();
    return job;
  }
}
