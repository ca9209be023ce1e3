import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * One chromedriver in a process group of its own: the Chromium it starts (and every renderer,
 * zygote and helper under it) joins the group, so retiring a session kills the whole tree at
 * once and nothing is left behind, even when the driver itself hangs.
 */
export class DriverProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(chromedriverPath: string, timeoutMs = 15_000): Promise<DriverProcess> {
    const port = await freePort();
    const child = spawn(chromedriverPath, [`--port=${port}`, '--allowed-ips=127.0.0.1', '--log-level=OFF'], {
      detached: true, // setsid: a new process group led by chromedriver
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    });
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
