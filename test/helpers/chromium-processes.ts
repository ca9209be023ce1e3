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
