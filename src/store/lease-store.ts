import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { retryingLostLocks } from './deadlock-retry.js';
import { deferredWritesOf, type DeferredWrites } from './deferred-writes.js';

export interface Lease {
  apiKeyId: number;
  slot: number;
  leaseId: string;
}

/**
 * Concurrency slots as rows keyed (api_key_id, slot): the primary key makes taking a slot one
 * atomic INSERT in SQLite and MySQL alike, so several server processes sharing a database agree.
 * Every lease carries its own expiry, so a process killed mid-request cannot leak a slot.
 */
export class LeaseStore {
  constructor(
    private readonly knex: Knex,
    private readonly now: () => number = Date.now,
    private readonly deferred: DeferredWrites = deferredWritesOf(knex),
  ) {}

  async acquire(apiKeyId: number, maxConcurrency: number, ttlMs: number): Promise<Lease | undefined> {
    for (let slot = 0; slot < maxConcurrency; slot++) {
      const lease = await this.tryTake(apiKeyId, slot, ttlMs);
      if (lease) return lease;
    }
    return undefined;
  }

  /**
   * Frees the slot (only if this lease still holds it). Resolves once done, or once deferred
   * because the database is unavailable: the slot is freed when it is back, not at the lease's expiry.
   */
  async release(lease: Lease): Promise<void> {
    await this.deferred.run(
      `the release of slot ${lease.slot} of key #${lease.apiKeyId}`,
      () => retryingLostLocks(() => this.knex('concurrency_leases').where({ api_key_id: lease.apiKeyId, slot: lease.slot, lease_id: lease.leaseId }).delete()),
      { idempotent: true },
    );
  }

  private async tryTake(apiKeyId: number, slot: number, ttlMs: number): Promise<Lease | undefined> {
    const lease = { apiKeyId, slot, leaseId: randomUUID() };
    for (let attempt = 0; attempt < 2; attempt++) {
      const now = this.now();
      try {
        await retryingLostLocks(() => this.knex('concurrency_leases').insert({ api_key_id: apiKeyId, slot, lease_id: lease.leaseId, expires_at: now + ttlMs }));
        return lease;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      // The slot is held; take it over only if its holder's lease has expired.
      const cleared = await retryingLostLocks(() => this.knex('concurrency_leases').where({ api_key_id: apiKeyId, slot }).andWhere('expires_at', '<', now).delete());
      if (cleared === 0) return undefined;
    }
    return undefined;
  }
}

function isDuplicateKey(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code === 'ER_DUP_ENTRY' || code.startsWith('SQLITE_CONSTRAINT');
}
