import type { RefusalCount, RefusalCounts } from '../billing/refusal-tally.js';
import type { Database } from './database.js';

/** Rows per statement: 4 bindings each, well below SQLite's 32766 and MySQL's 65535 placeholders. */
const CHUNK = 500;

/**
 * Refusal counts per key, day and status, each flush adding to what is stored. Kept for good, as
 * the daily totals are (one row per key, day and status at most).
 */
export class UsageRefusalsSql implements RefusalCounts {
  constructor(private readonly db: Database) {}

  /** Adds to what is stored, a few hundred counts per statement. */
  async add(counts: RefusalCount[]): Promise<void> {
    const merge =
      this.db.dialect === 'mysql'
        ? 'ON DUPLICATE KEY UPDATE count = count + VALUES(count)'
        : 'ON CONFLICT (api_key_id, day, status) DO UPDATE SET count = count + excluded.count';
    // Sorted, so two instances flushing at once take the rows' locks in the same order.
    const sorted = [...counts].sort((a, b) => a.apiKeyId - b.apiKeyId || a.day.localeCompare(b.day) || a.status - b.status);
    await this.db.knex.transaction(async (trx) => {
      for (let i = 0; i < sorted.length; i += CHUNK) {
        const chunk = sorted.slice(i, i + CHUNK);
        const values = chunk.map(() => '(?, ?, ?, ?)').join(', ');
        await trx.raw(`INSERT INTO usage_refusals (api_key_id, day, status, count) VALUES ${values} ${merge}`, chunk.flatMap((c) => [c.apiKeyId, c.day, c.status, c.count]));
      }
    });
  }

  /** `from`..`to` inclusive. */
  async byDay(apiKeyId: number, from: string, to: string): Promise<RefusalCount[]> {
    const rows = (await this.db.knex('usage_refusals').where({ api_key_id: apiKeyId }).andWhere('day', '>=', from).andWhere('day', '<=', to)) as Array<Record<string, number | string>>;
    return rows.map((r) => ({ apiKeyId, day: String(r.day), status: Number(r.status), count: Number(r.count) }));
  }
}
