import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { migrate, openDatabase, type Database } from '../../src/store/database.js';
import type { TestDatabase } from './databases.js';

export interface OpenedStore {
  /** Connections to one migrated database: the first migrated it; more stand for other instances. */
  connections: Database[];
  /** A key the tests' rows belong to (a business plan). */
  apiKeyId: number;
}

/**
 * An isolated, migrated database for the describe block it is called in, with one key: opened
 * before its tests (`opened` is told), closed and dropped after them. The stores' SQL suites
 * share it.
 */
export function useStoreDatabase(database: TestDatabase, options: { connections?: number; credits?: number }, opened: (store: OpenedStore) => void): void {
  let connections: Database[] = [];
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    const isolated = await database.isolated();
    drop = isolated.drop;
    connections = [openDatabase(isolated.url)];
    await migrate(connections[0]);
    while (connections.length < (options.connections ?? 1)) connections.push(openDatabase(isolated.url));
    const { record } = await new ApiKeyStore(connections[0].knex).create({ planName: 'business', credits: options.credits ?? 10, maxConcurrency: null });
    opened({ connections, apiKeyId: record.id });
  });
  after(async () => {
    for (const connection of connections) await connection.close();
    await drop?.();
  });
}
