import type { JobDocument, JobEvent } from '../jobs/job-ports.js';

/**
 * The largest body a delivery carries. A `page` event holds one document, which may be many MiB
 * (a raw page, a full-page screenshot): past this, the document goes without its contents, with
 * its metadata and a `warning` saying where to read it, so the outbox row and every attempt stay bounded.
 */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

export interface WebhookPayload {
  success: boolean;
  type: string;
  id: string;
  webhookId: string;
  data: JobDocument[];
  metadata: Record<string, string>;
  error?: string;
}

/** The event's name as Firecrawl spells it: `batch_scrape.page`, `crawl.completed`… */
export function eventName(event: Pick<JobEvent, 'kind' | 'type'>): string {
  return `${event.kind}.${event.type}`;
}

function trimmed(document: JobDocument, bytes: number, jobPath: string): JobDocument {
  return {
    metadata: document.metadata,
    warning: `The document (${bytes} bytes as JSON) is too large for a webhook (at most ${MAX_PAYLOAD_BYTES}); read it from ${jobPath}.`,
  };
}

/** Firecrawl's webhook body, as the exact text that is stored, signed and sent. */
export function webhookPayload(event: JobEvent, webhookId: string): string {
  const payload: WebhookPayload = {
    success: event.type !== 'failed' && event.error === undefined,
    type: eventName(event),
    id: event.jobId,
    webhookId,
    data: event.data,
    metadata: event.subscription.metadata,
    ...(event.error !== undefined ? { error: event.error.slice(0, 2000) } : {}),
  };
  let body = JSON.stringify(payload);
  if (Buffer.byteLength(body) <= MAX_PAYLOAD_BYTES) return body;
  const jobPath = `GET /v2/${event.kind === 'crawl' ? 'crawl' : 'batch/scrape'}/${event.jobId}`;
  payload.data = event.data.map((d) => {
    const bytes = Buffer.byteLength(JSON.stringify(d));
    return bytes > MAX_PAYLOAD_BYTES / Math.max(1, event.data.length) ? trimmed(d, bytes, jobPath) : d;
  });
  body = JSON.stringify(payload);
  if (Buffer.byteLength(body) <= MAX_PAYLOAD_BYTES) return body;
  // Metadata alone still too large (a hostile title?): the documents go, the event stays.
  payload.data = [];
  payload.error = `the event's documents are too large for a webhook; read them from ${jobPath}`;
  return JSON.stringify(payload);
}
