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

  /** Bytes Redis uses for data (INFO memory's used_memory minus its startup overhead). */
  async dataBytes(): Promise<number> {
    const conn = new Redis({ port: this.port, host: '127.0.0.1' });
    try {
      const info = await conn.info('memory');
      const field = (name: string) => Number(/^(\w+):(\d+)/m.test(info) ? new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] : 0);
      return field('used_memory') - field('used_memory_startup');
    } finally {
      conn.disconnect();
    }
  }
}
