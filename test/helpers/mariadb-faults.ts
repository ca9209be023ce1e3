import { TestStore } from './keys.js';
import { PrivateMariaDb } from './private-mariadb.js';
import { ServerProcess } from './server-process.js';
import { TargetServer } from './target-server.js';

/** What both MariaDB fault suites stand on: a private MariaDB, a target, two keys and a server over them. */
export interface MariaDbFaults {
  mariadb: PrivateMariaDb;
  target: TargetServer;
  store: TestStore;
  server: ServerProcess;
  /** An uncapped key, and one whose plan takes a concurrency slot per request (a slot left held would show). */
  keys: { uncapped: string; capped: string };
  initial: number;
}

/**
 * Registers the hooks of a MariaDB fault suite: a private MariaDB (the machine's shared one is
 * never touched), a target, two keys, and the real server on them with reconciliation every second,
 * one second past a reservation's settle limit, so that what an outage left reserved is refunded
 * within the test. `serverEnv` adds to the server's environment; `prepare` runs before the server
 * starts (routes on the target). A failed test prints the server's last warnings and errors.
 */
export function useMariaDbFaults(options: { serverEnv?: Record<string, string>; prepare?: (f: MariaDbFaults) => void | Promise<void> } = {}): MariaDbFaults {
  const f = { mariadb: new PrivateMariaDb(), target: new TargetServer(), keys: { uncapped: '', capped: '' }, initial: 1_000_000 } as MariaDbFaults;

  before(async function () {
    if (!PrivateMariaDb.available()) this.skip();
    await f.mariadb.start();
    await f.target.start();
    f.store = await TestStore.open(f.mariadb.url);
    f.keys.uncapped = await f.store.key({ credits: f.initial });
    f.keys.capped = await f.store.key({ planName: 'startup', credits: f.initial, maxConcurrency: 8 });
    await options.prepare?.(f);
    f.server = await new ServerProcess({
      DATABASE_URL: f.mariadb.url,
      ALLOW_PRIVATE_TARGETS: 'true',
      BROWSER_POOL_SIZE: '0',
      RECONCILE_INTERVAL_SECONDS: '1',
      RECONCILE_MARGIN_SECONDS: '1',
      ...options.serverEnv,
    }).start();
  });

  afterEach(function () {
    if (this.currentTest?.state !== 'failed' || !f.server) return;
    const lines = f.server.rawOutput.filter((l) => !l.startsWith('{') || /"level":(40|50|60)/.test(l));
    console.log(`server ${f.server.pid}: its last warnings and errors:\n${lines.slice(-15).join('\n').slice(0, 6_000)}`);
  });

  after(async () => {
    await f.server?.stop();
    await f.store?.close();
    await f.target.stop();
    await f.mariadb.cleanup();
  });
  return f;
}
