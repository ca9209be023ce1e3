// CPU seconds spent by a process and all its descendants (Chromium's renderers, chromedriver, a
// server child), read from /proc. A descendant that ended and was reaped is in its parent's
// cutime/cstime, so a difference of two readings counts the renderers that came and went between them.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

interface ProcStat {
  ppid: number;
  /** Its own CPU, and its reaped children's with it. */
  ticks: number;
  ownTicks: number;
}

function stat(pid: number): ProcStat | undefined {
  try {
    // The command name is in parentheses and may hold spaces: the fields start after its last ')'.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    const ownTicks = Number(fields[11]) + Number(fields[12]);
    return { ppid: Number(fields[1]), ticks: ownTicks + Number(fields[13]) + Number(fields[14]), ownTicks };
  } catch {
    return undefined;
  }
}

/** The processes of `root`'s tree (itself included), with their stat. */
function tree(root: number): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s) stats.set(Number(name), s);
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
      if (p === root) return true;
      const s = stats.get(p);
      if (!s) return false;
      p = s.ppid;
    }
    return false;
  };
  return new Map([...stats].filter(([pid]) => inTree(pid)));
}

/** CPU seconds of `root` and every live descendant (with the reaped ones they hold). */
export function treeCpuSeconds(root: number = process.pid): number {
  let ticks = 0;
  for (const s of tree(root).values()) ticks += s.ticks;
  return ticks / TICKS_PER_SECOND;
}

/** CPU seconds of `pid` alone: none of its children's (0 once it is gone). */
export function processCpuSeconds(pid: number): number {
  return (stat(pid)?.ownTicks ?? 0) / TICKS_PER_SECOND;
}

/** Summed PSS (MB) of `root` and every live descendant. */
export function treePssMb(root: number): number {
  let kb = 0;
  for (const pid of tree(root).keys()) {
    try {
      kb += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

/** CPU ticks by process (its own and its reaped children's) in `root`'s tree, with the process's kind. */
export function treeTicks(root: number = process.pid): Map<number, { kind: string; ticks: number }> {
  const stats = new Map<number, ProcStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s) stats.set(Number(name), s);
  }
  const out = new Map<number, { kind: string; ticks: number }>();
  for (const [pid, s] of stats) {
    let p = pid;
    for (let hops = 0; p > 1 && p !== root && hops < 64; hops++) p = stats.get(p)?.ppid ?? 0;
    if (p !== root) continue;
    let kind = 'other';
    try {
      // Chromium rewrites its command line into one string: split on spaces as well.
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      const type = cmd.find((a) => a.startsWith('--type='))?.slice(7);
      const sub = cmd.find((a) => a.startsWith('--utility-sub-type='))?.slice(19).split('.')[0];
      kind = pid === root ? 'node (this process)' : /chromedriver/.test(cmd[0]) ? 'chromedriver' : type ? `${type}${sub ? `:${sub}` : ''}` : /chrom/.test(cmd[0]) ? 'browser' : (cmd[0].split('/').pop() ?? 'other');
    } catch {
      // gone
    }
    out.set(pid, { kind, ticks: s.ticks });
  }
  return out;
}
