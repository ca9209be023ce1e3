import type { Knex } from 'knex';
import type { KeyJobRecord, KeyJobsPort } from '../webhooks/webhook-ports.js';
import type { Database } from './database.js';

interface JobRow {
  id: string;
  kind: string;
  status: string;
  total: number | string;
  done_count: number | string;
  failed_count: number | string;
  credits_used: number | string;
  created_at: number | string;
  expires_at: number | string;
}

/** A key's jobs as the operator lists them: a read of the jobs table (migration 010), newest first. */
export class KeyJobsSql implements KeyJobsPort {
  private readonly knex: Knex;

  constructor(db: Database) {
    this.knex = db.knex;
  }

  async recent(apiKeyId: number, limit: number): Promise<KeyJobRecord[] | undefined> {
    const key = await this.knex('api_keys').select('id').where({ id: apiKeyId }).first();
    if (!key) return undefined;
    const rows = (await this.knex('jobs')
      .select('id', 'kind', 'status', 'total', 'done_count', 'failed_count', 'credits_used', 'created_at', 'expires_at')
      .where({ api_key_id: apiKeyId })
      .orderBy('created_at', 'desc')
      .limit(limit)) as JobRow[];
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind as KeyJobRecord['kind'],
      status: r.status as KeyJobRecord['status'],
      total: Number(r.total),
      doneCount: Number(r.done_count),
      failedCount: Number(r.failed_count),
      creditsUsed: Number(r.credits_used),
      createdAt: Number(r.created_at),
      expiresAt: Number(r.expires_at),
    }));
  }
}
