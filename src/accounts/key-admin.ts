import { timingSafeEqual } from 'node:crypto';
import type { components } from '../generated/admin-types.js';
import { findPlan, type Catalog, type Plan } from '../config/catalog.js';
import { InvalidIpEntryError, normalizeIpEntries } from '../ip/ip-range.js';
import type { KeyColumns, KeyStorePort } from './account-ports.js';
import type { AuditAction } from './audit-entry.js';
import { allowedIpsColumn, type KeyRow } from './key-row.js';
import { newSecret } from './key-secret.js';
import { InvalidAccountChangeError, KeyNotFoundError, KeyRevokedError, SecretReplacedError, type InvalidField } from './account-errors.js';
import { auditStateOf, keyRecordOf, type KeyRecord } from './key-record.js';

export type NewKeyInput = components['schemas']['NewKey'];
export type KeyChangeInput = components['schemas']['KeyChange'];

/** Who makes a change, as the audit log names them: the admin token's holder, the server's shell, or a user on their own key. */
export type Actor = 'admin' | 'cli' | `key:${string}`;

export interface KeyAdminOptions {
  keys: KeyStorePort;
  catalog: Catalog;
  /** Every change made, by kind (the admin actions metric). */
  onAction?: (action: AuditAction) => void;
  now?: () => number;
}

const MAX_PAGE = 500;

/**
 * How long a user may keep their key's previous secret working when they rotate it themselves:
 * the choices the dashboard offers. Only the operator gives other periods (the admin API, the CLI).
 */
export const OWN_ROTATION_GRACE_SECONDS: readonly number[] = [0, 3600, 86_400];

const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The rules of keys and plans, in one place: the admin API, the dashboard and the CLI all call
 * these. Each change is written with its audit entry in one transaction, and never logs a secret.
 */
export class KeyAdmin {
  private readonly now: () => number;

  constructor(private readonly options: KeyAdminOptions) {
    this.now = options.now ?? Date.now;
  }

  get catalog(): Catalog {
    return this.options.catalog;
  }

  /** The secret is in the answer and nowhere else, ever. */
  async create(actor: Actor, input: NewKeyInput): Promise<{ key: string; record: KeyRecord }> {
    const plan = this.plan(input.plan);
    const allowedIps = ipEntries(input.allowed_ips ?? []);
    const spec = {
      planName: plan.name,
      credits: input.credits ?? plan.credits,
      maxConcurrency: input.max_concurrency !== undefined ? input.max_concurrency : plan.maxConcurrency,
      label: input.label,
      allowedIps,
    };
    const { key, row } = await this.options.keys.create(spec, (created) => ({
      actor, action: 'create', apiKeyId: Number(created.id), keyPrefix: created.key_prefix, before: null, after: auditStateOf(created),
    }));
    this.options.onAction?.('create');
    return { key, record: keyRecordOf(row) };
  }

  async get(id: number): Promise<KeyRecord> {
    const row = await this.options.keys.byId(id);
    if (!row) throw new KeyNotFoundError();
    return keyRecordOf(row);
  }

  async list(filter: { plan?: string; q?: string; revoked?: boolean; limit?: number; cursor?: string }): Promise<{ items: KeyRecord[]; next_cursor: string | null }> {
    const limit = Math.min(filter.limit ?? 100, MAX_PAGE);
    const beforeId = filter.cursor === undefined ? undefined : Number(filter.cursor.split('-')[0]);
    const rows = await this.options.keys.list({ plan: filter.plan, q: filter.q, revoked: filter.revoked, beforeId, limit: limit + 1 });
    const items = rows.slice(0, limit).map(keyRecordOf);
    return { items, next_cursor: rows.length > limit ? String(items[items.length - 1].id) : null };
  }

  /** The id of a key given as its secret or its display prefix (the CLI's way to name one). */
  async resolve(keyOrPrefix: string): Promise<number> {
    const id = await this.options.keys.idOf(keyOrPrefix);
    if (id === undefined) throw new KeyNotFoundError();
    return id;
  }

  /**
   * Only the fields given change. A new plan brings its allowance and concurrency (unless
   * `max_concurrency` is given too); credits move the allowance with the balance, so the credits
   * a period consumed always equal its charged requests.
   */
  async update(actor: Actor, id: number, change: KeyChangeInput): Promise<KeyRecord> {
    if (change.add_credits !== undefined && change.credits_remaining !== undefined) {
      throw new InvalidAccountChangeError([{ field: ['credits_remaining'], msg: 'give add_credits or credits_remaining, not both', type: 'value_error.conflict' }]);
    }
    const plan = change.plan === undefined ? undefined : this.plan(change.plan);
    const allowedIps = change.allowed_ips === undefined ? undefined : ipEntries(change.allowed_ips);
    const outcome = await this.options.keys.change(id, (row) => {
      if (row.revoked_at !== null) throw new KeyRevokedError();
      const set: KeyColumns = {};
      let total = Number(row.credits_total);
      let remaining = Number(row.credits_remaining);
      const consumed = total - remaining;
      if (plan) {
        set.plan_name = plan.name;
        set.max_concurrency = plan.maxConcurrency;
        total = Math.max(plan.credits, consumed);
        remaining = total - consumed;
      }
      if (change.add_credits !== undefined) {
        total += change.add_credits;
        remaining += change.add_credits;
      }
      if (change.credits_remaining !== undefined) {
        total += change.credits_remaining - remaining;
        remaining = change.credits_remaining;
      }
      if (total !== Number(row.credits_total) || remaining !== Number(row.credits_remaining)) Object.assign(set, { credits_total: total, credits_remaining: remaining });
      if (change.max_concurrency !== undefined) set.max_concurrency = change.max_concurrency;
      if (change.label !== undefined) set.label = change.label;
      if (allowedIps !== undefined) set.allowed_ips = allowedIpsColumn(allowedIps);
      const before = auditStateOf(row);
      const after = auditStateOf({ ...row, ...set });
      if (JSON.stringify(before) === JSON.stringify(after)) return undefined;
      return { set, audit: { actor, action: 'update', keyPrefix: row.key_prefix, before, after }, result: undefined };
    });
    if (outcome.outcome === 'missing') throw new KeyNotFoundError();
    if (outcome.outcome === 'changed') this.options.onAction?.('update');
    return keyRecordOf(outcome.row);
  }

  /** A new secret; the previous one works `graceSeconds` longer (0: refused at once), one before it no more. */
  rotate(actor: Actor, id: number, graceSeconds: number): Promise<{ key: string; record: KeyRecord }> {
    return this.rotateIf(actor, id, graceSeconds, () => undefined);
  }

  /**
   * A user rotating their own key, from a session that stands on the secret whose hash is
   * `secretHash`: only while that is the key's current secret (checked on the row locked for the
   * change), so a secret in its grace period, or a session opened with one, cannot take the key
   * over from its owner; and only with a grace the dashboard offers.
   */
  async rotateOwn(actor: `key:${string}`, id: number, graceSeconds: number, secretHash: string): Promise<{ key: string; record: KeyRecord }> {
    if (!OWN_ROTATION_GRACE_SECONDS.includes(graceSeconds)) {
      throw new InvalidAccountChangeError([{ field: ['grace_seconds'], msg: `must be one of ${OWN_ROTATION_GRACE_SECONDS.join(', ')}`, type: 'value_error.grace' }]);
    }
    return this.rotateIf(actor, id, graceSeconds, (row) => {
      if (!sameHash(row.key_hash, secretHash)) throw new SecretReplacedError();
    });
  }

  /** Whether `secretHash` is the key's current secret (not a previous one still in its grace period). */
  async isCurrentSecret(id: number, secretHash: string): Promise<boolean> {
    const row = await this.options.keys.byId(id);
    return row !== undefined && row.revoked_at === null && sameHash(row.key_hash, secretHash);
  }

  private async rotateIf(actor: Actor, id: number, graceSeconds: number, check: (row: KeyRow) => void): Promise<{ key: string; record: KeyRecord }> {
    const outcome = await this.options.keys.change(id, (row) => {
      if (row.revoked_at !== null) throw new KeyRevokedError();
      check(row);
      const secret = newSecret();
      const grace = graceSeconds > 0;
      return {
        set: { key_hash: secret.hash, key_prefix: secret.prefix, previous_key_hash: grace ? row.key_hash : null, previous_key_expires_at: grace ? this.now() + graceSeconds * 1000 : null },
        audit: { actor, action: 'rotate', keyPrefix: secret.prefix, before: { prefix: row.key_prefix }, after: { prefix: secret.prefix } },
        result: secret.key,
      };
    });
    if (outcome.outcome === 'missing') throw new KeyNotFoundError();
    if (outcome.outcome !== 'changed') throw new Error('a rotation always changes the key');
    this.options.onAction?.('rotate');
    return { key: outcome.result, record: keyRecordOf(outcome.row) };
  }

  /** From now on every secret of the key gets 403, on every instance (nothing caches a key). Revoking twice changes nothing. */
  async revoke(actor: Actor, id: number): Promise<KeyRecord> {
    const outcome = await this.options.keys.change(id, (row) => {
      if (row.revoked_at !== null) return undefined;
      return {
        set: { revoked_at: this.now(), previous_key_hash: null, previous_key_expires_at: null },
        audit: { actor, action: 'revoke', keyPrefix: row.key_prefix, before: { revoked: false }, after: { revoked: true } },
        result: undefined,
      };
    });
    if (outcome.outcome === 'missing') throw new KeyNotFoundError();
    if (outcome.outcome === 'changed') this.options.onAction?.('revoke');
    return keyRecordOf(outcome.row);
  }

  private plan(name: string): Plan {
    const plan = findPlan(this.options.catalog, name);
    if (!plan) {
      throw new InvalidAccountChangeError([{ field: ['plan'], msg: `unknown plan; one of: ${this.options.catalog.plans.map((p) => p.name).join(', ')}`, type: 'value_error.plan' }]);
    }
    return plan;
  }
}

/** Normalized entries, or a 422 naming each one that is not an address or range. */
function ipEntries(entries: readonly string[]): string[] {
  const issues: InvalidField[] = [];
  entries.forEach((entry, i) => {
    try {
      normalizeIpEntries([entry]);
    } catch (err) {
      if (!(err instanceof InvalidIpEntryError)) throw err;
      issues.push({ field: ['allowed_ips', i], msg: err.message, type: 'value_error.ip' });
    }
  });
  if (issues.length > 0) throw new InvalidAccountChangeError(issues);
  return normalizeIpEntries(entries);
}
