// What the load run knows of a server's browser sessions, read from the process table (ps) and
// /proc: each chromedriver the server starts leads a process group of its own, and that driver's
// Chromium (browser process, zygotes, renderers, GPU and utility processes) joins the group.
import { readFileSync } from 'node:fs';
import { livingProcesses, membersOf, sessionGroupsOf, type ProcessRow } from '../../../test/helpers/chromium-processes.js';

const executable = (p: ProcessRow) => p.args.split(' ')[0] ?? '';
const isChromedriver = (p: ProcessRow) => /chromedriver/.test(executable(p));
const isChromium = (p: ProcessRow) => /chrom(e|ium)/.test(executable(p)) && !isChromedriver(p);

/**
 * The browsers' main processes: Chromium without a `--type=` (renderers, zygotes and helpers have
 * one) whose parent is not Chromium itself (a child between fork and exec still shows its parent's
 * command line).
 */
export function browserMains(table: ProcessRow[], among: ProcessRow[] = table): ProcessRow[] {
  const chromium = new Set(table.filter(isChromium).map((p) => p.pid));
  return among.filter((p) => isChromium(p) && !/(^| )--type=/.test(p.args) && !chromium.has(p.ppid));
}

export interface MemoryKb {
  /** Proportional set size: private pages, plus each shared page divided among the processes mapping it. */
  pss: number;
  /** Private_Clean + Private_Dirty (USS): pages no other process on the machine shares. */
  private: number;
}

/** Summed memory of the processes, in kB, from /proc/<pid>/smaps_rollup. */
export function memoryKb(pids: number[]): MemoryKb {
  const sum = { pss: 0, private: 0 };
  for (const pid of pids) {
    let rollup: string;
    try {
      rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    } catch {
      continue; // ended while we looked
    }
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0);
    sum.pss += field('Pss');
    sum.private += field('Private_Clean') + field('Private_Dirty');
  }
  return sum;
}

/** The server's sessions at one moment: their process groups, and the browsers' main processes in them. */
export function poolSnapshot(serverPid: number): { groups: number[]; browsers: ProcessRow[]; members: ProcessRow[] } {
  const table = livingProcesses();
  const groups = sessionGroupsOf(serverPid, table);
  const members = membersOf(groups, table);
  return { groups, browsers: browserMains(table, members), members };
}
