import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface LogLine {
  msg?: string;
  level?: number;
  [key: string]: unknown;
}

/** The real server (`node --import tsx src/index.ts`) in its own process on a random port. */
export class ServerProcess {
  readonly logs: LogLine[] = [];
  readonly rawOutput: string[] = [];
  private child: ChildProcess | undefined;
  port = 0;

  constructor(private readonly env: Record<string, string>) {}

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  get base(): string {
    return `http://${this.env.HOST ?? '127.0.0.1'}:${this.port}`;
  }

  async start(): Promise<this> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
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
    return this;
  }

  /** A graceful stop (SIGTERM), as an operator would. */
  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    await exited;
  }

  /** A crash: SIGKILL, nothing cleaned up. */
  async kill(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
  }
}
