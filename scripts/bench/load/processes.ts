// What the load run knows of a server's browser sessions, read from /proc: each chromedriver the
// server starts leads a process group of its own, and that driver's Chromium (browser process,
// zygotes, renderers, GPU and utility processes) joins the group.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  /** The command line, arguments separated by spaces. */
  command: string;
}

/** Every living process (zombies left out); one that ends while it is read is skipped. */
export function processTable(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the parenthesised command name (which may hold spaces): state, ppid, pgrp.
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || state === 'X') continue;
      // Chromium's helpers rewrite their command line as one space-separated string.
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter((a) => a.length > 0).join(' ');
      out.push({ pid: Number(entry), ppid: Number(ppid), pgid: Number(pgid), state, command });
    } catch {
      // ended while we looked
    }
  }
  return out;
}

const executable = (p: ProcessInfo) => p.command.split(' ')[0] ?? '';
const isChromedriver = (p: ProcessInfo) => /chromedriver/.test(executable(p));
const isChromium = (p: ProcessInfo) => /chrom(e|ium)/.test(executable(p)) && !isChromedriver(p);

/**
 * The browsers' main processes: Chromium without a `--type=` (renderers, zygotes and helpers have
 * one) whose parent is not Chromium itself (a child between fork and exec still shows its parent's
 * command line).
 */
export function browserMains(table: ProcessInfo[], among: ProcessInfo[] = table): ProcessInfo[] {
  const chromium = new Set(table.filter(isChromium).map((p) => p.pid));
  return among.filter((p) => isChromium(p) && !/(^| )--type=/.test(p.command) && !chromium.has(p.ppid));
}

/** The process groups of the server's sessions: each chromedriver it started (its child) leads one. */
export function sessionGroups(table: ProcessInfo[], serverPid: number): number[] {
  return table.filter((p) => p.ppid === serverPid && isChromedriver(p)).map((p) => p.pgid);
}

export function inGroups(table: ProcessInfo[], groups: Iterable<number>): ProcessInfo[] {
  const wanted = new Set(groups);
  return table.filter((p) => wanted.has(p.pgid));
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
export function poolSnapshot(serverPid: number): { groups: number[]; browsers: ProcessInfo[]; members: ProcessInfo[] } {
  const table = processTable();
  const groups = sessionGroups(table, serverPid);
  const members = inGroups(table, groups);
  return { groups, browsers: browserMains(table, members), members };
}
