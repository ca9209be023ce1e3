import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `check` every 100 ms until it holds; throws naming `what` after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 15_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
}

/**
 * Waits until `check` holds or `ms` pass, and never fails itself: the assertion that follows
 * says what is wrong, with the values it found.
 */
export async function waitUntil(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  await eventually(check, ms).catch(() => undefined);
}
