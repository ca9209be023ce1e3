import type { Knex } from 'knex';
import type { Database } from './database.js';
import type { OperatorAddressesPort } from '../accounts/account-ports.js';

const BATCH = 500;

/** Client addresses the admin token was accepted from, and when last; shared by every instance. */
export class OperatorAddressesSql implements OperatorAddressesPort {
  private readonly knex: Knex;

  constructor(db: Database) {
    this.knex = db.knex;
  }

  async note(client: string, at: number): Promise<void> {
    await this.knex('operator_addresses').insert({ client, last_at: at }).onConflict('client').merge(['last_at']);
  }

  /** The clients seen since `since`, the most recent first, at most `limit` of them. */
  async since(since: number, limit: number): Promise<string[]> {
    const rows = (await this.knex('operator_addresses').select('client').where('last_at', '>=', since).orderBy('last_at', 'desc').limit(limit)) as Array<{ client: string }>;
    return rows.map((r) => r.client);
  }

  /** Deletes up to one batch of clients last seen before `before`; how many it deleted. */
  async pruneBefore(before: number): Promise<number> {
    const old = (await this.knex('operator_addresses').select('client').where('last_at', '<', before).limit(BATCH)) as Array<{ client: string }>;
    if (old.length > 0) await this.knex('operator_addresses').whereIn('client', old.map((r) => r.client)).delete();
    return old.length;
  }
}
