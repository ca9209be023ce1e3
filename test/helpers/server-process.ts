import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { recordStartedGroup } from './started-processes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Every server a test starts reaches loopback only, whatever its target policy decides (loopback-only-preload.ts). */
const LOOPBACK_ONLY = fileURLToPath(new URL('./loopback-only-preload.ts', import.meta.url));

/** An event the server sent over its IPC channel (EVENTS_TO_PARENT): `pool.started`, `pool.retired`… */
export interface ServerEvent {
  event: string;
  [key: string]: unknown;
}

export interface LogLine {
  msg?: string;
  level?: number;
  [key: string]: unknown;
}

/** The real server (`node --import tsx src/index.ts`) in its own process on a random port. */
export class ServerProcess {
  readonly logs: LogLine[] = [];
  /** Every event the server sent, in order (server/pool-listeners.ts). */
  readonly events: ServerEvent[] = [];
  private readonly eventWaiters = new Set<() => void>();
  /** Kept across restarts of this server (its Redis's data with it), like a deployment's. */
  private readonly dataDir = mkdtempSync(join(tmpdir(), 'scrapegate-server-'));
  readonly rawOutput: string[] = [];
  private child: ChildProcess | undefined;
  port = 0;

  /** `preload`: modules imported before the server's own (test faults). */
  constructor(
    private readonly env: Record<string, string>,
    private readonly preload: string[] = [],
  ) {}

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  /** Whether the process has exited (on its own or by a signal: then `exitCode` stays null). */
  private get exited(): boolean {
    return !this.child || this.child.exitCode !== null || this.child.signalCode !== null;
  }

  get base(): string {
    const host = this.env.HOST ?? '127.0.0.1';
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.port}`;
  }

  /** Resolves once the server is ready (/readyz 200, as a load balancer waits), or only listening. */
  async start(until: 'ready' | 'listening' = 'ready'): Promise<this> {
    const child = spawn(process.execPath, ['--import', 'tsx', ...[LOOPBACK_ONLY, ...this.preload].flatMap((p) => ['--import', p]), 'src/index.ts'], {
      cwd: ROOT,
      // A DATA_DIR of its own: its private Redis keeps its files there, one per server.
      env: {
        PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', EVENTS_TO_PARENT: 'true',
        DATA_DIR: this.dataDir, ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child = child;
    child.on('message', (message: ServerEvent) => {
      this.events.push(message);
      if (message.event === 'pool.started') recordStartedGroup(Number(message.processGroup));
      for (const wake of this.eventWaiters) wake();
    });
    let buffered = '';
    const listening = new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          this.rawOutput.push(line);
          try {
            const parsed = JSON.parse(line) as LogLine;
            this.logs.push(parsed);
            if (parsed.msg === 'listening') {
              this.port = Number(parsed.port);
              resolve();
            }
          } catch {
            // not a log line
          }
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => this.rawOutput.push(chunk.toString('utf8')));
      child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${this.rawOutput.join('\n')}`)));
    });
    await listening;
    if (until === 'ready') await this.ready();
    return this;
  }

  /** Polls /readyz until it answers 200 (the browser pool warms after the server listens). */
  async ready(timeoutMs = 90_000): Promise<void> {
    const started = Date.now();
    for (;;) {
      if (this.exited) throw new Error(`server exited before it was ready:\n${this.rawOutput.join('\n')}`);
      const res = await fetch(`${this.base}/readyz`).catch(() => undefined);
      const said = res ? await res.text() : 'no answer';
      if (res?.status === 200) return;
      if (Date.now() - started > timeoutMs) throw new Error(`server not ready within ${timeoutMs} ms: ${said}`);
      await sleep(100);
    }
  }

  /** The events named `event` the server has sent so far. */
  eventsNamed(event: string): ServerEvent[] {
    return this.events.filter((e) => e.event === event);
  }

  /** Resolves once the server has sent `count` events named `event` (counting those already sent). */
  waitForEvents(event: string, count: number, timeoutMs = 30_000): Promise<ServerEvent[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.eventsNamed(event);
        if (found.length < count) return;
        done();
        resolve(found);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`the server sent ${this.eventsNamed(event).length} "${event}" events, not ${count}, within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.eventWaiters.delete(check);
      };
      this.eventWaiters.add(check);
      check();
    });
  }

  /** The first log line with this message, waiting for it to be written (logs are asynchronous). */
  async logLine(msg: string, timeoutMs = 5_000): Promise<LogLine> {
    const started = Date.now();
    for (;;) {
      const line = this.logs.find((l) => l.msg === msg);
      if (line) return line;
      if (Date.now() - started > timeoutMs) throw new Error(`no "${msg}" log line within ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  /** Resolves with the exit code when the process exits on its own. */
  exitCode(): Promise<number | null> {
    const child = this.child;
    if (!child || this.exited) return Promise.resolve(child?.exitCode ?? null);
    return once(child, 'exit').then(([code]) => code as number | null);
  }

  /** Sends `signal`; resolves with the exit code once the process has exited. */
  signal(signal: NodeJS.Signals): Promise<number | null> {
    const child = this.child;
    if (!child || this.exited) return Promise.resolve(child?.exitCode ?? null);
    const exited = once(child, 'exit').then(([code]) => code as number | null);
    child.kill(signal);
    return exited;
  }

  /** A graceful stop (SIGTERM), as an operator would. */
  async stop(): Promise<void> {
    if (!this.child || this.exited) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    await exited;
  }

  /** A crash: SIGKILL, nothing cleaned up. */
  async kill(): Promise<void> {
    if (!this.child || this.exited) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
  }
}
