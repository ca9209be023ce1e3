import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { percentile } from '../../scripts/bench/measure.js';

/** What a prober saw while an attack ran. */
export interface ProbeReport {
  /** Probes answered. */
  probes: number;
  /** The slowest /healthz answer, in ms (a probe still unanswered when the prober stopped counts its wait so far). */
  worstMs: number;
  /** The 99th percentile of the answers' times, in ms, the unanswered one counted as `worstMs` is. */
  p99Ms: number;
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

/**
 * The probing loop, in a process of its own: the test's process is often busy driving the attack
 * (hundreds of sockets writing), and a probe timed there would measure that, not the server. Each
 * probe is a GET of /healthz on a new connection (a pooled one could queue behind the attack's);
 * each latency is printed as a line, and a probe still waiting when the prober is stopped is
 * reported by the parent as the wait so far.
 */
const PROBE_LOOP = `
const http = require('node:http');
const [base, everyMs] = [process.argv[1], Number(process.argv[2])];
const probe = () => new Promise((resolve) => {
  const started = performance.now();
  process.stdout.write('start\\n');
  const req = http.get(base + '/healthz', { agent: false }, (res) => {
    res.resume();
    res.on('end', () => resolve([performance.now() - started, res.statusCode]));
  });
  req.on('error', (err) => resolve([performance.now() - started, 0]));
});
(async () => {
  for (;;) {
    const [ms, status] = await probe();
    process.stdout.write(JSON.stringify({ ms, status }) + '\\n');
    await new Promise((r) => setTimeout(r, everyMs));
  }
})();
`;

/**
 * Measures `/healthz` one probe after another, each on a new connection, while an attack runs,
 * and samples the server's RSS: the event loop's latency as another tenant would meet it, and
 * what the attack costs in memory. `stop()` ends it and reports.
 */
export class HealthProber {
  private worstMs = 0;
  private readonly latencies: number[] = [];
  private probes = 0;
  private peakRssMb = 0;
  private failures = 0;
  private inFlightSince: number | undefined;
  private firstProbe: (() => void) | undefined;
  private readonly answered = new Promise<void>((resolve) => (this.firstProbe = resolve));
  private readonly child: ChildProcess;
  private readonly rssTimer: NodeJS.Timeout | undefined;

  constructor(
    base: string,
    private readonly pid?: number,
    everyMs = 20,
  ) {
    if (pid !== undefined) {
      this.sampleRss();
      this.rssTimer = setInterval(() => this.sampleRss(), 50);
    }
    this.child = spawn(process.execPath, ['-e', PROBE_LOOP, base, String(everyMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let buffered = '';
    this.child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line === 'start') {
          this.inFlightSince = performance.now();
          continue;
        }
        const { ms, status } = JSON.parse(line) as { ms: number; status: number };
        this.inFlightSince = undefined;
        this.probes++;
        this.firstProbe?.();
        if (status !== 200) this.failures++;
        this.worstMs = Math.max(this.worstMs, ms);
        this.latencies.push(ms);
      }
    });
  }

  /**
   * Resolves once the first probe is answered: the probing child starts in its own time (longer
   * on a busy machine), and an attack begun before would be over before it was watched.
   */
  ready(): Promise<void> {
    return this.answered;
  }

  private sampleRss(): void {
    if (this.pid !== undefined) this.peakRssMb = Math.max(this.peakRssMb, rssMb(this.pid));
  }

  async stop(): Promise<ProbeReport> {
    clearInterval(this.rssTimer);
    this.sampleRss();
    // A probe still waiting is as slow as its wait so far, and is not waited for further.
    if (this.inFlightSince !== undefined) {
      const waited = performance.now() - this.inFlightSince;
      this.worstMs = Math.max(this.worstMs, waited);
      this.latencies.push(waited);
    }
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
    if (this.failures > 0) throw new Error(`${this.failures} of ${this.probes} /healthz probes failed`);
    const p99Ms = this.latencies.length === 0 ? 0 : percentile(this.latencies, 99);
    return { probes: this.probes, worstMs: this.worstMs, p99Ms, peakRssMb: this.peakRssMb };
  }
}
