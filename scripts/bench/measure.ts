import { readdirSync, readFileSync } from 'node:fs';

export interface Run {
  label: string;
  latencies: number[];
  wallMs: number;
}

/** Runs `count` calls of `once` over `clients` concurrent loops, timing each call. */
export async function measure(label: string, count: number, clients: number, once: (client: number) => Promise<void>): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (next < count) {
        next++;
        const t = performance.now();
        await once(client);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { label, latencies, wallMs: performance.now() - started };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
export const throughput = (run: Run) => (run.latencies.length / run.wallMs) * 1000;

export function describeRun(run: Run): string {
  return `${run.label.padEnd(48)} n=${String(run.latencies.length).padStart(3)}  p50 ${percentile(run.latencies, 50).toFixed(0).padStart(5)} ms  p95 ${percentile(run.latencies, 95).toFixed(0).padStart(5)} ms  ${throughput(run).toFixed(2).padStart(6)} renders/s`;
}

/** Summed PSS (MB) of every Chromium and chromedriver process on the machine. */
export function chromiumPssMb(): number {
  let kb = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!/chromium|chromedriver/.test(cmd)) continue;
      kb += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}
