/**
 * The process groups the tests started: each browser session of every server a test ran (its
 * log says which), each session made in this process, each Grid process. After the run,
 * nothing of them may be alive (root-hooks.ts); nothing else on the machine is looked at, so a
 * developer's own browser, or another checkout's test run, never fails this one.
 */
const groups = new Set<number>();

export function recordStartedGroup(pgid: number | undefined): void {
  if (pgid) groups.add(pgid);
}

export function startedGroups(): number[] {
  return [...groups];
}
