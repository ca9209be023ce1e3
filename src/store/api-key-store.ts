import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { addMonths, currentPeriod } from './billing-period.js';

export interface ApiKeyRecord {
  id: number;
  prefix: string;
  label: string | null;
  planName: string;
  creditsTotal: number;
  creditsRemaining: number;
  /** null: no concurrency cap. */
  maxConcurrency: number | null;
  periodStart: number;
  periodEnd: number;
  createdAt: number;
  revokedAt: number | null;
}

interface Row {
  id: number;
  key_hash: string;
  key_prefix: string;
  label: string | null;
  plan_name: string;
  credits_total: number | string;
  credits_remaining: number | string;
  max_concurrency: number | null;
  period_start: number | string;
  period_end: number | string;
  created_at: number | string;
  revoked_at: number | string | null;
}

const KEY_PREFIX = 'sg_';
const DISPLAY_PREFIX_LENGTH = 10;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function toRecord(r: Row): ApiKeyRecord {
  return {
    id: Number(r.id),
    prefix: r.key_prefix,
    label: r.label,
    planName: r.plan_name,
    creditsTotal: Number(r.credits_total),
    creditsRemaining: Number(r.credits_remaining),
    maxConcurrency: r.max_concurrency === null ? null : Number(r.max_concurrency),
    periodStart: Number(r.period_start),
    periodEnd: Number(r.period_end),
    createdAt: Number(r.created_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  };
}

export interface NewKey {
  planName: string;
  credits: number;
  maxConcurrency: number | null;
  label?: string;
}

/** Keys and their subscriptions. A key is stored only as its SHA-256; the key itself is shown once. */
export class ApiKeyStore {
  constructor(
    private readonly knex: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  async create(spec: NewKey): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = KEY_PREFIX + randomBytes(24).toString('base64url'); // 192 bits
    const now = this.now();
    const row = {
      key_hash: hashApiKey(key),
      key_prefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
      label: spec.label ?? null,
      plan_name: spec.planName,
      credits_total: spec.credits,
      credits_remaining: spec.credits,
      max_concurrency: spec.maxConcurrency,
      period_start: now,
      period_end: addMonths(now, 1),
      created_at: now,
      revoked_at: null,
    };
    await this.knex('api_keys').insert(row);
    const stored = await this.knex<Row>('api_keys').where({ key_hash: row.key_hash }).first();
    return { key, record: toRecord(stored as Row) };
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.knex<Row>('api_keys').orderBy('id');
    return rows.map(toRecord);
  }

  /** Revokes by the full key or by its display prefix when that names exactly one key. */
  async revoke(keyOrPrefix: string): Promise<ApiKeyRecord | undefined> {
    let rows = await this.knex<Row>('api_keys').where({ key_hash: hashApiKey(keyOrPrefix) });
    if (rows.length === 0) rows = await this.knex<Row>('api_keys').where({ key_prefix: keyOrPrefix });
    if (rows.length !== 1) return undefined;
    await this.knex('api_keys').where({ id: rows[0].id }).whereNull('revoked_at').update({ revoked_at: this.now() });
    const updated = await this.knex<Row>('api_keys').where({ id: rows[0].id }).first();
    return toRecord(updated as Row);
  }

  /**
   * The active key for a presented secret, with its subscription rolled into the current period.
   * One SELECT on the hot path; the reset UPDATE runs once a month per key and is conditional on
   * the old period, so concurrent requests (or processes) cannot reset twice.
   */
  async findActive(key: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.knex<Row>('api_keys').where({ key_hash: hashApiKey(key) }).first();
    if (!row) return undefined;
    const record = toRecord(row);
    if (record.revokedAt !== null) return undefined;
    const now = this.now();
    if (now < record.periodEnd) return record;
    const next = currentPeriod(record.periodStart, record.periodEnd, now);
    await this.knex('api_keys')
      .where({ id: record.id, period_end: record.periodEnd })
      .update({ period_start: next.start, period_end: next.end, credits_remaining: this.knex.ref('credits_total') });
    const fresh = await this.knex<Row>('api_keys').where({ id: record.id }).first();
    return toRecord(fresh as Row);
  }
}
