import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { EngineRegistry } from '../../src/engines/engine-registry.js';
import type { ScrapeOverrides } from '../../src/server/scrape-parts.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { FakeEngine, type FakeBehaviour } from './fake-engine.js';
import { TestStore } from './keys.js';

/** The real server, started in this process on a free port: its real routing, validation, billing and answers, over a scripted engine. */
export interface InProcessServer {
  base: string;
  engine: FakeEngine;
  store: TestStore;
  running: RunningServer;
  close(): Promise<void>;
}

/**
 * For the fast tests of the API: startServer on port 0 with an embedded SQLite database of its
 * own and `FakeEngine` in place of both engines (no target, no browser), so every operation's
 * routing, validation, billing and answer is exercised in milliseconds.
 */
export async function inProcessServer(paths: Record<string, FakeBehaviour> = {}, env: Record<string, string> = {}, overrides: Omit<ScrapeOverrides, 'engines'> = {}): Promise<InProcessServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'scrapegate-fast-'));
  const databaseUrl = `sqlite:${join(dataDir, 'fast.sqlite')}`;
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', BROWSER_POOL_SIZE: '0', ...env });
  const engine = new FakeEngine(paths);
  const running = await startServer(config, pino({ level: 'silent' }), { ...overrides, engines: new EngineRegistry({ plain: engine, browser: engine }) });
  const store = await TestStore.open(databaseUrl);
  return {
    base: `http://127.0.0.1:${running.port}`,
    engine,
    store,
    running,
    async close() {
      await store.close();
      await running.shutdown(1_000);
    },
  };
}
