import { execFileSync } from 'node:child_process';

/** PIDs of running headless Chromium browser processes (not zombies) on this machine. */
export function chromiumPids(): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return out
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\S+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null && !m[2].startsWith('Z') && /chromium/.test(m[3]) && m[3].includes('--headless'))
    .map((m) => Number(m[1]));
}

function psRows(): Array<{ pid: number; ppid: number; pgid: number; stat: string; comm: string }> {
  let out = '';
  try {
    out = execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,stat=,comm='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 5)
    .map(([pid, ppid, pgid, stat, comm]) => ({ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), stat, comm }));
}

/** The process groups of a server's browser sessions: each chromedriver it started leads one. */
export function sessionGroupsOf(serverPid: number): number[] {
  return psRows()
    .filter((r) => r.ppid === serverPid && r.comm.startsWith('chromedriver') && !r.stat.startsWith('Z'))
    .map((r) => r.pgid);
}

/** Live (non-zombie) processes in any of the groups. */
export function livingIn(groups: number[]): number[] {
  const wanted = new Set(groups);
  return psRows()
    .filter((r) => wanted.has(r.pgid) && !r.stat.startsWith('Z'))
    .map((r) => r.pid);
}
