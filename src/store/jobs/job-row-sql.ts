import type { JobRow } from '../../jobs/job-store.js';
import type { JobKind, JobStatus, StoredScrapeOptions, WebhookSubscription } from '../../jobs/job-ports.js';

/** A `jobs` row as the drivers answer it (MySQL's BIGINT as strings), joined with its key's hash. */
export interface JobDbRow {
  id: string;
  kind: string;
  api_key_id: number;
  key_hash: string;
  status: string;
  engine: string;
  url: string | null;
  options: string;
  webhook: string | null;
  client_address: string;
  max_concurrency: number | null;
  max_retries: number;
  total: number;
  done_count: number;
  failed_count: number;
  credits_used: number | string;
  error: string | null;
  created_at: number | string;
  finished_at: number | string | null;
  expires_at: number | string;
}

export const JOB_COLUMNS = [
  'jobs.id', 'jobs.kind', 'jobs.api_key_id', 'api_keys.key_hash', 'jobs.status', 'jobs.engine', 'jobs.url', 'jobs.options', 'jobs.webhook',
  'jobs.client_address', 'jobs.max_concurrency', 'jobs.max_retries', 'jobs.total', 'jobs.done_count', 'jobs.failed_count', 'jobs.credits_used',
  'jobs.error', 'jobs.created_at', 'jobs.finished_at', 'jobs.expires_at',
];

export function jobOf(row: JobDbRow): JobRow {
  return {
    id: row.id,
    kind: row.kind as JobKind,
    apiKeyId: Number(row.api_key_id),
    keyHash: row.key_hash,
    status: row.status as JobStatus,
    engine: row.engine === 'browser' ? 'browser' : 'plain',
    url: row.url ?? undefined,
    options: JSON.parse(row.options) as StoredScrapeOptions,
    webhook: row.webhook === null ? undefined : (JSON.parse(row.webhook) as WebhookSubscription),
    clientAddress: row.client_address,
    maxConcurrency: row.max_concurrency ?? undefined,
    maxRetries: Number(row.max_retries),
    total: Number(row.total),
    doneCount: Number(row.done_count),
    failedCount: Number(row.failed_count),
    creditsUsed: Number(row.credits_used),
    error: row.error ?? undefined,
    createdAt: Number(row.created_at),
    finishedAt: row.finished_at === null ? undefined : Number(row.finished_at),
    expiresAt: Number(row.expires_at),
  };
}
