import type { Knex } from 'knex';
import type { Database } from './database.js';
import type { SignInFailuresPort } from '../accounts/account-ports.js';

const BATCH = 500;

/** Failed sign-ins (dashboard and admin API) per client, shared by every instance. */
export class SignInFailuresSql implements SignInFailuresPort {
  private readonly knex: Knex;

  constructor(db: Database) {
    this.knex = db.knex;
  }

  /** The attempt's row (a failure until it is forgiven by `forgive`); its id. */
  async record(client: string, at: number): Promise<number> {
    const [id] = (await this.knex('sign_in_failures').insert({ client, at })) as number[];
    return Number(id);
  }

  async forgive(id: number): Promise<void> {
    await this.knex('sign_in_failures').where({ id }).delete();
  }

  async countSince(client: string, since: number): Promise<number> {
    const row = (await this.knex('sign_in_failures').where({ client }).andWhere('at', '>=', since).count({ count: '*' }).first()) as { count: number | string } | undefined;
    return Number(row?.count ?? 0);
  }

  /** When the client's failure at `offset` (0: the oldest) since `since` happened. */
  async atSince(client: string, since: number, offset: number): Promise<number | undefined> {
    const row = (await this.knex('sign_in_failures').select('at').where({ client }).andWhere('at', '>=', since).orderBy('at').offset(offset).first()) as { at: number | string } | undefined;
    return row === undefined ? undefined : Number(row.at);
  }

  /**
   * Failures of every client since `since`, counted up to `cap` only: the answer costs at most
   * `cap` index entries however many addresses an attack comes from.
   */
  async countAllSince(since: number, cap: number): Promise<number> {
    const capped = this.knex('sign_in_failures').select('id').where('at', '>=', since).limit(cap).as('capped');
    const row = (await this.knex.from(capped).count({ count: '*' }).first()) as { count: number | string } | undefined;
    return Number(row?.count ?? 0);
  }

  /** When the failure at `offset` (0: the oldest) of every client since `since` happened. */
  async atSinceAll(since: number, offset: number): Promise<number | undefined> {
    const row = (await this.knex('sign_in_failures').select('at').where('at', '>=', since).orderBy('at').offset(offset).first()) as { at: number | string } | undefined;
    return row === undefined ? undefined : Number(row.at);
  }

  /** Deletes up to one batch of failures older than `before`; how many it deleted. */
  async pruneBefore(before: number): Promise<number> {
    const old = (await this.knex('sign_in_failures').select('id').where('at', '<', before).limit(BATCH)) as Array<{ id: number | string }>;
    if (old.length > 0) await this.knex('sign_in_failures').whereIn('id', old.map((r) => r.id)).delete();
    return old.length;
  }
}
