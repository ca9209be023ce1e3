import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `check` every 100 ms until it holds; throws naming `what` after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 15_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
}
