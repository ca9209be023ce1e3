import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { TetheredChild } from '../../process/tethered-child.js';

/** A Unix socket's path is limited to 107 bytes; a deep DATA_DIR puts it in a temporary folder. */
const SOCKET_PATH_MAX = 100;

export interface PrivateRedisOptions {
  serverPath: string;
  /** Its append-only file lives here (created 0700). */
  dir: string;
  startTimeoutMs?: number;
}

/**
 * The redis-server scrapegate runs when no REDIS_URL is given: a child in a process group of its
 * own that dies with the service (process/tethered-child.ts), listening on a Unix socket only
 * (no port, nothing reachable from the network), with append-only persistence fsynced every
 * second and `noeviction` (BullMQ requires it: an evicted key is a lost job). Snapshots are off:
 * the append-only file is the only copy, so a restart loses at most the last second, which the
 * job engine recovers (jobs/README.md).
 */
export class PrivateRedis {
  private constructor(
    private readonly child: TetheredChild,
    readonly socketPath: string,
    private readonly socketDir: string | undefined,
  ) {}

  static async start(options: PrivateRedisOptions): Promise<PrivateRedis> {
    // redis-server changes into its --dir first: every path it is given must be absolute.
    const dir = resolve(options.dir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    let socketPath = join(dir, 'redis.sock');
    let socketDir: string | undefined;
    if (Buffer.byteLength(socketPath) > SOCKET_PATH_MAX) {
      socketDir = await mkdtemp(join(tmpdir(), 'scrapegate-redis-'));
      socketPath = join(socketDir, 'redis.sock');
    }
    if (await answers(socketPath)) {
      throw new Error(`another scrapegate's private Redis is running in ${dir}: give each instance a DATA_DIR of its own, or point them all at one Redis with REDIS_URL`);
    }
    await rm(socketPath, { force: true });
    const child = TetheredChild.start(options.serverPath, [
      '--port', '0', '--unixsocket', socketPath, '--unixsocketperm', '700', '--dir', dir,
      '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--maxmemory-policy', 'noeviction',
      '--daemonize', 'no', '--protected-mode', 'yes', '--logfile', '',
    ]);
    const redis = new PrivateRedis(child, socketPath, socketDir);
    try {
      await redis.ready(options.startTimeoutMs ?? 15_000);
    } catch (err) {
      child.kill();
      throw err;
    }
    return redis;
  }

  get pgid(): number | undefined {
    return this.child.pgid;
  }

  /** Ends the server, its append-only file flushed (SHUTDOWN); killed if it does not go in time. */
  async stop(timeoutMs = 5_000): Promise<void> {
    if (this.child.alive) {
      const conn = new Redis({ path: this.socketPath, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      conn.on('error', () => undefined);
      try {
        await conn.connect();
        await conn.call('SHUTDOWN').catch(() => undefined); // the server hangs up as it goes
      } catch {
        // not answering: killed below
      } finally {
        conn.disconnect();
      }
      const gone = await Promise.race([this.child.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
      if (!gone) this.child.kill();
    }
    this.child.kill();
    if (this.socketDir) await rm(this.socketDir, { recursive: true, force: true });
  }

  /** Answers PING on its socket; a server that exits, or never answers in time, is an error. */
  private async ready(timeoutMs: number): Promise<void> {
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      if (!this.child.alive) throw new Error(`redis-server exited at start (is ${this.socketPath} writable, and the server Redis 7?)`);
      if (await answers(this.socketPath)) return;
      await sleep(25);
    }
    throw new Error(`redis-server did not answer within ${timeoutMs} ms`);
  }
}

/** Whether a Redis answers PING on the socket now. */
async function answers(socketPath: string): Promise<boolean> {
  const conn = new Redis({ path: socketPath, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  conn.on('error', () => undefined);
  try {
    await conn.connect();
    return (await conn.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    conn.disconnect();
  }
}
