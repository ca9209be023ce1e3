// Watches the server's browser sessions through a run: how many browsers there are every 0.5 s,
// and every session's process group, retired ones included, so none may be found alive later.
import { poolSnapshot } from './processes.js';

export class BrowserWatch {
  /** Process groups of every session seen. */
  readonly seenGroups = new Set<number>();
  /** The most browsers in two consecutive readings. */
  max = 0;
  /** The most in any single reading (may catch one being torn down). */
  maxSingleReading = 0;
  private previousCount = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly serverPid: number,
    private readonly poolSize: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Reads once now, then every 0.5 s until stop(). */
  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), 500);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  sample(): void {
    const { groups, browsers } = poolSnapshot(this.serverPid);
    for (const g of groups) this.seenGroups.add(g);
    const n = browsers.length;
    if (n > this.poolSize && n > this.maxSingleReading) {
      this.log(`a reading of ${n} browsers: ${browsers.map((p) => `${p.pid} (group ${p.pgid}, parent ${p.ppid}, state ${p.stat})`).join(', ')}`);
    }
    this.maxSingleReading = Math.max(this.maxSingleReading, n);
    // A count is taken as the lower of two readings 0.5 s apart: a browser killed on retirement
    // may still be tearing down for a moment while its replacement starts; a leak stays.
    this.max = Math.max(this.max, Math.min(this.previousCount, n));
    this.previousCount = n;
  }
}
