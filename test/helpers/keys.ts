import { ApiKeyStore, type NewKey } from '../../src/store/api-key-store.js';
import { migrate, openDatabase, type Database } from '../../src/store/database.js';

/** Direct access to the server's database, to make keys and read balances as an operator would. */
export class TestStore {
  readonly db: Database;
  readonly keys: ApiKeyStore;

  private constructor(url: string) {
    this.db = openDatabase(url);
    this.keys = new ApiKeyStore(this.db.knex);
  }

  static async open(url: string): Promise<TestStore> {
    const store = new TestStore(url);
    await migrate(store.db);
    return store;
  }

  async key(spec: Partial<NewKey> = {}): Promise<string> {
    const created = await this.keys.create({ planName: 'business', credits: 1_000_000, maxConcurrency: null, ...spec });
    return created.key;
  }

  async remaining(key: string): Promise<number> {
    const record = await this.keys.find(key);
    if (!record) throw new Error('no such key');
    return record.creditsRemaining;
  }

  async leasesOf(key: string): Promise<number> {
    const record = await this.keys.find(key);
    const row = await this.db.knex('concurrency_leases').where({ api_key_id: record?.id ?? -1 }).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** The ledger's row of one request, by the id its answer carried in `Svc-request-id`. */
  async ledgerRow(requestId: string): Promise<LedgerRowView | undefined> {
    const row = await this.db.knex('request_ledger').where({ request_id: requestId }).first<Record<string, unknown> | undefined>();
    if (!row) return undefined;
    return { outcome: String(row.outcome), cost: Number(row.cost), statusSent: row.status_sent === null ? null : Number(row.status_sent), targetHost: String(row.target_host) };
  }
}

export interface LedgerRowView {
  outcome: string;
  cost: number;
  statusSent: number | null;
  targetHost: string;
}
