import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { TetheredChild } from '../../src/process/tethered-child.js';
import { freePort } from './free-port.js';

/**
 * A redis-server of the test's own on a loopback port, persisted as a deployment's should be
 * (append-only, fsync every second, noeviction), that can be killed and started again on the
 * same data: what REDIS_URL points at in the tests of several instances and of Redis crashes.
 */
export class TestRedis {
  private child: TetheredChild | undefined;

  private constructor(readonly port: number, readonly dir: string) {}

  static async start(): Promise<TestRedis> {
    const redis = new TestRedis(await freePort(), mkdtempSync(join(tmpdir(), 'scrapegate-test-redis-')));
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it (again) on the same port and data, and waits for it to answer. */
  async restart(): Promise<void> {
    this.child = TetheredChild.start('/usr/bin/redis-server', [
      '--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes', '--appendfsync', 'everysec',
      '--save', '', '--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--logfile', '',
    ]);
    for (let i = 0; i < 400; i++) {
      const conn = new Redis({ port: this.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      conn.on('error', () => undefined);
      try {
        await conn.connect();
        if ((await conn.ping()) === 'PONG') return;
      } catch {
        // not up yet
      } finally {
        conn.disconnect();
      }
      await sleep(25);
    }
    throw new Error('the test redis-server did not start');
  }

  /** SIGKILL to its process group, as a crash. */
  async kill(): Promise<void> {
    this.child?.kill();
    await this.child?.exited;
  }

  /** BullMQ's entries for items held now, and the bytes of every queue key (`MEMORY USAGE`). */
  async queueLoad(): Promise<{ entries: number; bytes: number }> {
    const conn = new Redis({ port: this.port, host: '127.0.0.1' });
    try {
      let entries = 0;
      let bytes = 0;
      for (let cursor = '0'; ; ) {
        const [next, keys] = await conn.scan(cursor, 'MATCH', 'scrapegate:items-*', 'COUNT', 1000);
        for (const key of keys) {
          if (/:[0-9a-f-]{36}\.\d+\.\d+$/.test(key)) entries++;
          bytes += Number((await conn.call('MEMORY', 'USAGE', key)) ?? 0);
        }
        cursor = next;
        if (cursor === '0') return { entries, bytes };
      }
    } finally {
      conn.disconnect();
    }
  }
}
