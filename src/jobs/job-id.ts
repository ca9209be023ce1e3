import { randomBytes } from 'node:crypto';

/**
 * A job's id: a UUID (version 7), as Firecrawl's clients expect one, whose first 48 bits are the
 * time it was made. Ordered by id, a key's jobs are in the order they came, so the dispatcher
 * serves its older job first by reading an index, not by sorting.
 */
export function newJobId(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `id` can be a job's at all: anything else is unknown without a query. */
export function isJobId(id: string): boolean {
  return UUID.test(id);
}
