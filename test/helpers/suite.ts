import type { TestDatabase } from './databases.js';
import { TestStore } from './keys.js';
import { ServerProcess } from './server-process.js';
import { TargetServer } from './target-server.js';

export interface Suite {
  server: ServerProcess;
  target: TargetServer;
  store: TestStore;
  databaseUrl: string;
  /** GET/POST… on the server; the query is given as pairs so parameters can repeat. */
  call(path: string, query: Array<[string, string]>, init?: RequestInit): Promise<Response>;
}

/**
 * Registers mocha hooks that start a local target and the real server on `database` for one
 * describe. `targetHost` 127.0.0.2 with `TARGET_ALLOW_CIDRS=127.0.0.2/32` runs it with the target
 * policy on. `preload`: modules the server imports before its own (test fixtures). `env` may be a
 * function, called once the target is up.
 */
export function useSuite(
  database: TestDatabase,
  env: Record<string, string> | (() => Record<string, string>) = {},
  targetHost = '127.0.0.1',
  preload: string[] = [],
): Suite {
  const suite = {} as Suite;
  before(async function () {
    this.timeout(60_000);
    suite.databaseUrl = database.freshUrl();
    suite.target = await new TargetServer(targetHost).start();
    suite.store = await TestStore.open(suite.databaseUrl);
    // The MySQL suites share one schema: failed sign-ins an earlier suite made on purpose (from
    // 127.0.0.1, like every test) must not count against this one's.
    await suite.store.db.knex('sign_in_failures').delete();
    // Plain-mode suites run without browsers unless they ask for a pool (BROWSER_POOL_SIZE).
    const extra = typeof env === 'function' ? env() : env;
    suite.server = await new ServerProcess({ DATABASE_URL: suite.databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', BROWSER_POOL_SIZE: '0', ...extra }, preload).start();
    suite.call = (path, query, init) => fetch(`${suite.server.base}${path}?${new URLSearchParams(query)}`, init);
  });
  after(async () => {
    await suite.server?.stop();
    await suite.target?.stop();
    await suite.store?.close();
  });
  return suite;
}
