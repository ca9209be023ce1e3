import { execFileSync } from 'node:child_process';

export interface ProcessRow {
  pid: number;
  ppid: number;
  pgid: number;
  stat: string;
  args: string;
}

/** Every process on the machine, zombies (stat Z) left out. */
export function livingProcesses(): ProcessRow[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,stat=,args='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return out
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null && !m[4].startsWith('Z'))
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), stat: m[4], args: m[5] }));
}

/** The process groups of a server's browser sessions: each child of the server leads one (its private redis-server's group aside). */
export function sessionGroupsOf(serverPid: number, table: ProcessRow[] = livingProcesses()): number[] {
  return table.filter((p) => p.ppid === serverPid && p.pgid === p.pid && !p.args.includes('redis-server')).map((p) => p.pgid);
}

/** PIDs of the headless Chromium processes (browser, renderers, helpers) in any of the groups. */
export function browsersIn(groups: Iterable<number>, table: ProcessRow[] = livingProcesses()): number[] {
  return membersOf(groups, table)
    .filter((p) => /chromium/.test(p.args) && p.args.includes('--headless'))
    .map((p) => p.pid);
}

/** The living processes in any of the groups. */
export function membersOf(groups: Iterable<number>, table: ProcessRow[] = livingProcesses()): ProcessRow[] {
  const wanted = new Set(groups);
  return table.filter((p) => wanted.has(p.pgid));
}

/** PIDs of the living processes in any of the groups. */
export function livingIn(groups: number[]): number[] {
  return membersOf(groups).map((p) => p.pid);
}
