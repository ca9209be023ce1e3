import type { Knex } from 'knex';
import type { Database } from './database.js';
import type { SessionRecord, SessionRole, SessionStorePort } from '../dashboard/dashboard-ports.js';

interface SessionRow {
  id_hash: string;
  role: string;
  api_key_id: number | string | null;
  credential_hash: string;
  created_at: number | string;
  expires_at: number | string;
}

const BATCH = 500;

/** The dashboard's sessions, shared by every instance. */
export class DashboardSessionsSql implements SessionStorePort {
  private readonly knex: Knex;

  constructor(db: Database) {
    this.knex = db.knex;
  }

  async insert(session: SessionRecord): Promise<void> {
    await this.knex('dashboard_sessions').insert({
      id_hash: session.idHash,
      role: session.role,
      api_key_id: session.apiKeyId,
      credential_hash: session.credentialHash,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    });
  }

  /** An unexpired session, or undefined. */
  async find(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const row = (await this.knex<SessionRow>('dashboard_sessions').where({ id_hash: idHash }).andWhere('expires_at', '>', now).first()) as SessionRow | undefined;
    if (!row) return undefined;
    return {
      idHash: row.id_hash,
      role: row.role === 'admin' ? 'admin' : 'key',
      apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
      credentialHash: row.credential_hash,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    };
  }

  /** After a user rotates their own key, their session stands on the new secret. */
  async rebind(idHash: string, credentialHash: string): Promise<void> {
    await this.knex('dashboard_sessions').where({ id_hash: idHash }).update({ credential_hash: credentialHash });
  }

  /**
   * Marks a one-use form as sent; false when this session sent it already (a reload of the page
   * that answered it). One statement, so two copies sent at once cannot both claim it.
   */
  async claimForm(idHash: string, formId: string): Promise<boolean> {
    const changed = await this.knex('dashboard_sessions')
      .where({ id_hash: idHash })
      .andWhere((w) => w.whereNull('last_form_id').orWhereNot({ last_form_id: formId }))
      .update({ last_form_id: formId });
    return Number(changed) === 1;
  }

  async delete(idHash: string): Promise<void> {
    await this.knex('dashboard_sessions').where({ id_hash: idHash }).delete();
  }

  /** Keeps the newest `keep` sessions of one key (or of the operator): a valid secret cannot pile up rows. */
  async trim(role: SessionRole, apiKeyId: number | null, keep: number): Promise<void> {
    const older = (await this.knex('dashboard_sessions')
      .select('id_hash')
      .where({ role, api_key_id: apiKeyId })
      .orderBy('created_at', 'desc')
      .offset(keep)
      .limit(BATCH)) as Array<{ id_hash: string }>;
    if (older.length > 0) await this.knex('dashboard_sessions').whereIn('id_hash', older.map((r) => r.id_hash)).delete();
  }

  /** Deletes up to one batch of expired sessions; how many it deleted. */
  async pruneExpired(now: number): Promise<number> {
    const expired = (await this.knex('dashboard_sessions').select('id_hash').where('expires_at', '<=', now).limit(BATCH)) as Array<{ id_hash: string }>;
    if (expired.length > 0) await this.knex('dashboard_sessions').whereIn('id_hash', expired.map((r) => r.id_hash)).delete();
    return expired.length;
  }
}
