import type { Engine } from './plan.js';
import type { Outcome } from './send.js';

/** Latency percentiles of the answered requests of one engine, ms; warm-up renders left out. */
export function latency(outcomes: Outcome[], engine: Engine): { n: number; p50: number; p95: number } {
  const ms = outcomes.filter((o) => o.request.engine === engine && o.status !== 0 && o.request.id >= 0).map((o) => o.ms).sort((a, b) => a - b);
  const at = (p: number) => (ms.length === 0 ? 0 : ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))]);
  return { n: ms.length, p50: at(50), p95: at(95) };
}
