import { readFileSync } from 'node:fs';
import http from 'node:http';

/** What a prober saw while an attack ran. */
export interface ProbeReport {
  /** Probes answered. */
  probes: number;
  /** The slowest /healthz answer, in ms (a probe still unanswered when the prober stopped counts its wait so far). */
  worstMs: number;
  /** The largest resident set seen of the watched process, in MB (0 when no pid was given). */
  peakRssMb: number;
}

/** Resident set size of a process in MB (Linux /proc); 0 when it is gone. */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** One GET of /healthz on a connection of its own (a pooled one could queue behind the attack's). */
function probeOnce(base: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/healthz`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`/healthz answered ${res.statusCode}`))));
    });
    req.on('error', reject);
  });
}

/**
 * Measures `/healthz` one probe after another, each on a new connection, while an attack runs,
 * and samples the server's RSS: the event loop's latency as another tenant would meet it, and
 * what the attack costs in memory. `stop()` ends it and reports.
 */
export class HealthProber {
  private running = true;
  private worstMs = 0;
  private probes = 0;
  private peakRssMb = 0;
  private inFlightSince: number | undefined;
  private readonly loop: Promise<void>;
  private readonly rssTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly base: string,
    private readonly pid?: number,
    private readonly everyMs = 20,
  ) {
    if (pid !== undefined) {
      this.sampleRss();
      this.rssTimer = setInterval(() => this.sampleRss(), 50);
    }
    this.loop = this.run();
  }

  private sampleRss(): void {
    if (this.pid !== undefined) this.peakRssMb = Math.max(this.peakRssMb, rssMb(this.pid));
  }

  private async run(): Promise<void> {
    while (this.running) {
      const started = performance.now();
      this.inFlightSince = started;
      await probeOnce(this.base);
      this.inFlightSince = undefined;
      this.worstMs = Math.max(this.worstMs, performance.now() - started);
      this.probes++;
      await new Promise((resolve) => setTimeout(resolve, this.everyMs));
    }
  }

  async stop(): Promise<ProbeReport> {
    this.running = false;
    clearInterval(this.rssTimer);
    this.sampleRss();
    // A probe still waiting is as slow as its wait so far, and is not waited for further.
    if (this.inFlightSince !== undefined) this.worstMs = Math.max(this.worstMs, performance.now() - this.inFlightSince);
    await Promise.race([this.loop, new Promise((resolve) => setTimeout(resolve, 50))]);
    return { probes: this.probes, worstMs: this.worstMs, peakRssMb: this.peakRssMb };
  }
}
