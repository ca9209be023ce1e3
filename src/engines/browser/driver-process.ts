import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A port free now; the caller registers it as scrapegate's own before anything listens on it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The session's process group is led by this shell, not by chromedriver. It holds the read end of
 * a pipe whose only write end is the service's: when the service ends, however it ends (SIGKILL
 * included), the kernel closes that end, `read` returns, and the whole group is killed — driver,
 * Chromium and every process under it — at once. If chromedriver exits on its own, the group goes
 * with it too. chromedriver gets no copy of the pipe.
 */
const WATCHDOG = 'exec 3<&0 0</dev/null; "$0" "$@" 3<&- & driver=$!; { read -r line <&3; kill -KILL 0; } & wait "$driver"; kill -KILL 0';

/**
 * One chromedriver in a process group of its own, under a watchdog: the Chromium it starts (and
 * every renderer, zygote and helper under it) joins the group, so retiring a session kills the
 * whole tree at once and nothing is left behind, even when the driver itself hangs or the
 * service is killed.
 */
export class DriverProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  /**
   * `port` is registered as scrapegate's own by the caller before this starts. Without
   * `--allowed-ips` chromedriver listens on loopback only (with it, on every interface).
   */
  static async start(chromedriverPath: string, port: number, timeoutMs = 15_000): Promise<DriverProcess> {
    const child = spawn('/bin/sh', ['-c', WATCHDOG, chromedriverPath, `--port=${port}`, '--log-level=OFF'], {
      detached: true, // setsid: a new process group led by the watchdog
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    });
    // The pipe must not keep this process alive, and is never written: only its end matters.
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    child.stdin?.on('error', () => undefined);
    child.unref();
    const driver = new DriverProcess(child, `http://127.0.0.1:${port}`);
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      if (child.exitCode !== null) throw new Error(`chromedriver exited with ${child.exitCode}`);
      try {
        const res = await fetch(`${driver.url}/status`);
        if (res.ok) return driver;
      } catch {
        // not listening yet
      }
      await sleep(25);
    }
    driver.kill();
    throw new Error(`chromedriver did not answer within ${timeoutMs} ms`);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGKILL to the whole group: the driver, Chromium and all of Chromium's children. */
  kill(): void {
    if (!this.child.pid) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }

  /** Proportional set size of every process in the group, in MB (Linux /proc). */
  async memoryMb(): Promise<number> {
    return this.child.pid ? groupPssMb(this.child.pid) : 0;
  }
}

/** Summed PSS of the processes whose process group is `pgid`, in MB. */
export async function groupPssMb(pgid: number): Promise<number> {
  let kb = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // Field 5 (pgrp) follows the parenthesised command name, which may itself hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const rollup = await readFile(`/proc/${entry}/smaps_rollup`, 'utf8');
      kb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // the process ended while we looked
    }
  }
  return kb / 1024;
}
