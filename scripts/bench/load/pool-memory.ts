// The browser pool's memory, read from /proc: the figure after warm-up is the reference the figure
// at the end is held to, so both are read only once the pool has settled.
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryKb, poolSnapshot } from './processes.js';

export interface MemoryFigures {
  /** Summed PSS of the pool's process groups, kB. */
  pssKb: number;
  /** Private (USS) part of it, kB: not shared with any other process on the machine. */
  privateKb: number;
  processes: number;
  browsers: number;
}

export function poolMemory(serverPid: number): MemoryFigures {
  const { browsers, members } = poolSnapshot(serverPid);
  const kb = memoryKb(members.map((p) => p.pid));
  return { pssKb: kb.pss, privateKb: kb.private, processes: members.length, browsers: browsers.length };
}

/**
 * Waits until the pool is whole and quiet (as many browsers as sessions, the same processes for
 * 1.5 s: resets and replacements done), then takes the median of three memory readings.
 */
export async function settledPoolMemory(serverPid: number, poolSize: number, until: number): Promise<MemoryFigures> {
  let previous = '';
  let stableSince = Date.now();
  while (Date.now() < until) {
    const { groups, browsers, members } = poolSnapshot(serverPid);
    const shape = members.map((p) => p.pid).sort().join(',');
    const whole = groups.length === poolSize && browsers.length === poolSize;
    if (shape !== previous || !whole) stableSince = Date.now();
    previous = shape;
    if (whole && Date.now() - stableSince >= 1_500) break;
    await sleep(250);
  }
  const readings: MemoryFigures[] = [];
  for (let i = 0; i < 3; i++) {
    readings.push(poolMemory(serverPid));
    await sleep(200);
  }
  return readings.sort((a, b) => a.pssKb - b.pssKb)[1];
}
