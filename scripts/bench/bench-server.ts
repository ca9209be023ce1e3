// scrapegate for a browser bench: its own SQLite database with one key, a warm pool of
// `poolSize` sessions, the port read from its "listening" log line.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { migrate, openDatabase } from '../../src/store/database.js';

export interface BenchServer {
  port: number;
  /** The server's process: its browsers are its descendants. */
  pid: number;
  key: string;
  stop(): Promise<void>;
}

export async function startBenchServer(poolSize: number): Promise<BenchServer> {
  const databaseUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'bench-')), 'bench.sqlite')}`;
  const db = openDatabase(databaseUrl);
  await migrate(db);
  const { key } = await new ApiKeyStore(db.knex).create({ planName: 'business', credits: 1_000_000, maxConcurrency: null });
  await db.close();
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', BROWSER_POOL_SIZE: String(poolSize), LOG_LEVEL: 'info', SE_OFFLINE: 'true' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) => {
    server.stdout!.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) if (line.includes('"listening"')) resolve(Number(JSON.parse(line).port));
    });
  });
  return {
    port,
    pid: server.pid!,
    key,
    stop: async () => {
      server.kill('SIGTERM');
      await new Promise((r) => server.on('exit', r));
    },
  };
}
