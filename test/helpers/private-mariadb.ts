import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';

/** An executable by name on PATH or in the sbin directories PATH often lacks; undefined if none. */
function locate(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin'];
  for (const dir of dirs.filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Small InnoDB files and buffers: the server holds a few rows and starts in about a second. */
const SMALL = ['--innodb-buffer-pool-size=16M', '--innodb-log-file-size=8M', '--skip-log-bin', '--skip-name-resolve'];

/**
 * A MariaDB server of one test's own, on loopback and a free port, with its data in a temporary
 * directory: the test can stop it (a real shutdown) and start it again on the same port and data,
 * which must never be done to the machine's shared MariaDB. Root logs in without a password and
 * the database `test` exists.
 */
export class PrivateMariaDb {
  private readonly dir = mkdtempSync(join(tmpdir(), 'scrapegate-mariadb-'));
  private child: ChildProcess | undefined;
  private installed = false;
  /** If the test process ends without cleanup() (a crash, a Ctrl-C), the server still goes with it. */
  private readonly killOnExit = () => {
    if (this.running) {
      this.child?.kill('SIGCONT');
      this.child?.kill('SIGKILL');
    }
  };
  port = 0;

  /** Whether this machine has the server and its installer (Debian's mariadb-server). */
  static available(): boolean {
    return locate('mariadbd') !== undefined && locate('mariadb-install-db') !== undefined;
  }

  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}/test`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  /** Installs the data directory on the first call; then starts the server and waits until it serves `test`. */
  async start(timeoutMs = 30_000): Promise<this> {
    if (this.running) return this;
    if (!this.installed) {
      const install = spawnSync(
        locate('mariadb-install-db') ?? 'mariadb-install-db',
        ['--no-defaults', `--datadir=${this.dataDir}`, '--auth-root-authentication-method=normal', '--user=root', '--skip-test-db', ...SMALL],
        { encoding: 'utf8', timeout: timeoutMs },
      );
      if (install.status !== 0) throw new Error(`mariadb-install-db failed (${install.status}):\n${install.stdout}\n${install.stderr}`);
      this.installed = true;
      this.port = await freePort();
    }
    const child = spawn(
      locate('mariadbd') ?? 'mariadbd',
      [
        '--no-defaults',
        `--datadir=${this.dataDir}`,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(this.dir, 'sock')}`,
        `--pid-file=${join(this.dir, 'pid')}`,
        `--log-error=${this.errorLog}`,
        '--user=root',
        ...SMALL,
      ],
      { stdio: 'ignore' },
    );
    this.child = child;
    process.off('exit', this.killOnExit).on('exit', this.killOnExit);
    const started = Date.now();
    for (;;) {
      if (!this.running) throw new Error(`mariadbd exited with ${child.exitCode ?? child.signalCode}:\n${this.log()}`);
      try {
        const conn = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root', connectTimeout: 1_000 });
        try {
          await conn.query('CREATE DATABASE IF NOT EXISTS test');
        } finally {
          await conn.end();
        }
        return this;
      } catch {
        // not accepting yet
      }
      if (Date.now() - started > timeoutMs) {
        await this.kill();
        throw new Error(`mariadbd did not accept connections within ${timeoutMs} ms:\n${this.log()}`);
      }
      await sleep(100);
    }
  }

  /** A real shutdown, as an operator's `systemctl stop` does it: SIGTERM, then wait for the exit. */
  async stop(timeoutMs = 30_000): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  /** A crash: SIGKILL, whatever it was doing (InnoDB recovers on the next start). */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  /** A frozen server (SIGSTOP): connections stay open, nothing answers, until `thaw`. */
  freeze(): void {
    if (this.running) this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    if (this.running) this.child?.kill('SIGCONT');
  }

  /** Kills the server if it still runs and removes its data: the end of the test, whatever happened. */
  async cleanup(): Promise<void> {
    await this.kill();
    process.off('exit', this.killOnExit);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The server's error log, for a failure message. */
  log(): string {
    try {
      return readFileSync(this.errorLog, 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '(no error log)';
    }
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  private get errorLog(): string {
    return join(this.dir, 'error.log');
  }
}
