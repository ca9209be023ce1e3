import type { Knex } from 'knex';
import type { JobKind, JobStatus } from '../jobs/job-ports.js';

/**
 * The storage webhooks are given (store/ implements each): the outbox of deliveries, each key's
 * signing secret, and a read of a key's jobs for the operator. The rules here know no SQL.
 */

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'stopped';

export interface NewDelivery {
  /** The webhook-id, the same on every attempt. */
  id: string;
  apiKeyId: number;
  jobId: string;
  event: string;
  /** The body, exactly as it will be signed and sent. */
  payload: string;
  url: string;
  headers: Record<string, string>;
  createdAt: number;
  nextAttemptAt: number;
}

/** A delivery a deliverer holds until `claimedUntil` (its attempt is `attempts`, counted at the claim). */
export interface ClaimedDelivery {
  id: string;
  apiKeyId: number;
  payload: string;
  url: string;
  headers: Record<string, string>;
  attempts: number;
  createdAt: number;
  claimToken: string;
}

/** What an attempt ended in, as recorded. */
export type AttemptRecord =
  | { state: 'delivered'; status: number }
  | { state: 'pending'; nextAttemptAt: number; status: number | undefined; error: string }
  | { state: 'failed' | 'stopped'; status: number | undefined; error: string };

export interface DeliveryRecord {
  id: string;
  apiKeyId: number;
  jobId: string;
  event: string;
  url: string;
  state: DeliveryState;
  attempts: number;
  /** When the next attempt runs (pending only). */
  nextAttemptAt: number | undefined;
  lastStatus: number | undefined;
  lastError: string | undefined;
  createdAt: number;
  deliveredAt: number | undefined;
}

export interface DeliveryStorePort {
  /** In `trx` when given: the delivery is durable exactly when the change it reports is. */
  insert(delivery: NewDelivery, trx?: Knex.Transaction): Promise<void>;
  /**
   * Up to `limit` due deliveries, each claimed by a conditional update (held until `now + leaseMs`
   * and its attempt counted), so no two deliverers on the database ever hold the same attempt.
   */
  claimDue(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Records an attempt's end while the claim still holds; false if it was lost (the lease ran out). */
  finish(id: string, claimToken: string, record: AttemptRecord, now: number): Promise<boolean>;
  /** Gives a claimed delivery back, its attempt not made (not counted). */
  release(id: string, claimToken: string): Promise<void>;
  /** The key's newest deliveries; undefined when no key has this id. */
  recent(apiKeyId: number, limit: number): Promise<DeliveryRecord[] | undefined>;
  byId(id: string): Promise<DeliveryRecord | undefined>;
  /** Deletes up to `limit` finished deliveries (delivered, failed, stopped) created before `before`; how many. */
  prune(before: number, limit: number): Promise<number>;
  /** Pending again, due at `now`, whatever its state; undefined when no delivery has this id. */
  replay(id: string, now: number): Promise<DeliveryRecord | undefined>;
}

export interface SecretRotation {
  actor: string;
  apiKeyId: number;
  secret: string;
}

export interface WebhookSecretsPort {
  /** The key's secret, made (by `make`) and stored the first time it is asked for; undefined when no key has this id. */
  secretOf(apiKeyId: number, make: () => string): Promise<string | undefined>;
  /** Replaces the secret, with its audit entry in one transaction; false when no key has this id. */
  rotate(rotation: SecretRotation): Promise<boolean>;
}

/** A key's job, as the operator lists them. */
export interface KeyJobRecord {
  id: string;
  kind: JobKind;
  status: JobStatus;
  total: number;
  doneCount: number;
  failedCount: number;
  creditsUsed: number;
  createdAt: number;
  expiresAt: number;
}

export interface KeyJobsPort {
  /** The key's newest jobs; undefined when no key has this id. */
  recent(apiKeyId: number, limit: number): Promise<KeyJobRecord[] | undefined>;
}
