import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The child's process group is led by this shell. It holds the read end of a pipe whose only
 * write end is the service's: when the service ends, however it ends (SIGKILL included), the
 * kernel closes that end, `read` returns, and the whole group is killed at once. If the child
 * exits on its own, the group goes with it. The child gets no copy of the pipe.
 */
const WATCHDOG = 'exec 3<&0 0</dev/null; "$0" "$@" 3<&- & child=$!; { read -r line <&3; kill -KILL 0; } & wait "$child"; kill -KILL 0';

export interface TetheredOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * A helper process (a private redis-server) that dies with the service: in a process group of
 * its own under a watchdog, so nothing it started is left behind, even after a SIGKILL.
 */
export class TetheredChild {
  /** Settles when the group's leader has exited (the child and the watchdog with it). */
  readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
  }

  static start(command: string, args: string[], options: TetheredOptions = {}): TetheredChild {
    const child = spawn('/bin/sh', ['-c', WATCHDOG, command, ...args], {
      detached: true, // setsid: a new process group led by the watchdog
      stdio: ['pipe', 'ignore', 'ignore'],
      cwd: options.cwd,
      env: options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    });
    // The pipe must not keep this process alive, and is never written: only its end matters.
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    child.stdin?.on('error', () => undefined);
    child.unref();
    return new TetheredChild(child);
  }

  /** The process group's id (the watchdog's pid). */
  get pgid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGKILL to the whole group. */
  kill(): void {
    if (!this.child.pid) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }
}
