import { setTimeout as sleep } from 'node:timers/promises';

/** Waits until `url` answers at all (any status), for at most 30 s: a bench's server coming up. */
export async function untilUp(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${url} did not come up`);
}
