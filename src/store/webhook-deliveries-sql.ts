import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { AttemptRecord, ClaimedDelivery, DeliveryRecord, DeliveryState, DeliveryStorePort, NewDelivery } from '../webhooks/webhook-ports.js';
import type { Database } from './database.js';

interface DeliveryRow {
  id: string;
  api_key_id: number | string;
  job_id: string;
  event: string;
  payload: string;
  url: string;
  headers: string;
  state: string;
  attempts: number | string;
  next_attempt_at: number | string;
  claimed_until: number | string;
  claim_token: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number | string;
  delivered_at: number | string | null;
}

/** Candidates read per claim; each is then claimed by its own conditional update. */
const CANDIDATES_PER_SLOT = 2;

const recordOf = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  apiKeyId: Number(r.api_key_id),
  jobId: r.job_id,
  event: r.event,
  url: r.url,
  state: r.state as DeliveryState,
  attempts: Number(r.attempts),
  nextAttemptAt: r.state === 'pending' ? Number(r.next_attempt_at) : undefined,
  lastStatus: r.last_status ?? undefined,
  lastError: r.last_error ?? undefined,
  createdAt: Number(r.created_at),
  deliveredAt: r.delivered_at === null ? undefined : Number(r.delivered_at),
});

const LIST_COLUMNS = ['id', 'api_key_id', 'job_id', 'event', 'url', 'state', 'attempts', 'next_attempt_at', 'last_status', 'last_error', 'created_at', 'delivered_at'];

/** The webhook outbox (webhook_deliveries, migration 011). */
export class WebhookDeliveriesSql implements DeliveryStorePort {
  private readonly knex: Knex;

  constructor(db: Database) {
    this.knex = db.knex;
  }

  async insert(d: NewDelivery, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.knex)('webhook_deliveries').insert({
      id: d.id,
      api_key_id: d.apiKeyId,
      job_id: d.jobId,
      event: d.event,
      payload: d.payload,
      url: d.url,
      headers: JSON.stringify(d.headers),
      state: 'pending',
      attempts: 0,
      next_attempt_at: d.nextAttemptAt,
      claimed_until: 0,
      created_at: d.createdAt,
    });
  }

  /**
   * Reads due candidates, then claims each with an UPDATE that holds only if it is still due and
   * unclaimed: of two deliverers racing for one row, one update changes it and the other none.
   */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const due = (await this.knex('webhook_deliveries')
      .select('id')
      .where({ state: 'pending' })
      .andWhere('next_attempt_at', '<=', now)
      .andWhere('claimed_until', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit * CANDIDATES_PER_SLOT)) as Array<{ id: string }>;
    const claimed: ClaimedDelivery[] = [];
    for (const { id } of due) {
      if (claimed.length >= limit) break;
      const token = randomUUID();
      const changed = await this.knex('webhook_deliveries')
        .where({ id, state: 'pending' })
        .andWhere('next_attempt_at', '<=', now)
        .andWhere('claimed_until', '<=', now)
        .update({ claimed_until: now + leaseMs, claim_token: token, attempts: this.knex.raw('attempts + 1') });
      if (changed !== 1) continue;
      const r = (await this.knex<DeliveryRow>('webhook_deliveries').where({ id, claim_token: token }).first()) as DeliveryRow | undefined;
      if (!r) continue;
      claimed.push({
        id: r.id,
        apiKeyId: Number(r.api_key_id),
        payload: r.payload,
        url: r.url,
        headers: JSON.parse(r.headers) as Record<string, string>,
        attempts: Number(r.attempts),
        createdAt: Number(r.created_at),
        claimToken: token,
      });
    }
    return claimed;
  }

  async finish(id: string, claimToken: string, record: AttemptRecord, now: number): Promise<boolean> {
    const set: Record<string, unknown> = {
      state: record.state,
      claimed_until: 0,
      claim_token: null,
      last_status: record.status ?? null,
      last_error: record.state === 'delivered' ? null : record.error.slice(0, 500),
    };
    if (record.state === 'pending') set.next_attempt_at = record.nextAttemptAt;
    if (record.state === 'delivered') set.delivered_at = now;
    const changed = await this.knex('webhook_deliveries').where({ id, claim_token: claimToken }).update(set);
    return changed === 1;
  }

  async release(id: string, claimToken: string): Promise<void> {
    await this.knex('webhook_deliveries')
      .where({ id, claim_token: claimToken })
      .update({ claimed_until: 0, claim_token: null, attempts: this.knex.raw('attempts - 1') });
  }

  async prune(before: number, limit: number): Promise<number> {
    const ids = (await this.knex('webhook_deliveries').select('id').whereNot({ state: 'pending' }).andWhere('created_at', '<', before).limit(limit)) as Array<{ id: string }>;
    if (ids.length === 0) return 0;
    return this.knex('webhook_deliveries').whereIn('id', ids.map((r) => r.id)).whereNot({ state: 'pending' }).delete();
  }

  async recent(apiKeyId: number, limit: number): Promise<DeliveryRecord[] | undefined> {
    if (!(await this.knex('api_keys').select('id').where({ id: apiKeyId }).first())) return undefined;
    const rows = (await this.knex('webhook_deliveries').select(LIST_COLUMNS).where({ api_key_id: apiKeyId }).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit)) as DeliveryRow[];
    return rows.map(recordOf);
  }

  async byId(id: string): Promise<DeliveryRecord | undefined> {
    const row = (await this.knex('webhook_deliveries').select(LIST_COLUMNS).where({ id }).first()) as DeliveryRow | undefined;
    return row && recordOf(row);
  }

  /** A claim in flight keeps its lease: the replay is the attempt after it (its finish leaves the row as the attempt ended, and a pending row is due now). */
  async replay(id: string, now: number): Promise<DeliveryRecord | undefined> {
    await this.knex('webhook_deliveries').where({ id }).update({ state: 'pending', next_attempt_at: now });
    return this.byId(id);
  }
}
