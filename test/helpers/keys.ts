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
    const record = await this.keys.findActive(key);
    if (!record) throw new Error('no such key');
    return record.creditsRemaining;
  }

  async leasesOf(key: string): Promise<number> {
    const record = await this.keys.findActive(key);
    const row = await this.db.knex('concurrency_leases').where({ api_key_id: record?.id ?? -1 }).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
