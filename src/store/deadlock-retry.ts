import { setTimeout as sleep } from 'node:timers/promises';

/** InnoDB gave up the statement as a deadlock victim or on a lock wait: it was rolled back whole. */
const LOST_LOCK = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

const TRIES = 4;

/**
 * Runs one autocommit statement again when InnoDB chose it as a deadlock victim. Several
 * instances taking, expiring and freeing a capped key's slots while its balance is updated do
 * deadlock now and then (the lease INSERT's foreign-key check shares a lock on the key's row);
 * the victim was rolled back, so running it again is exactly as if it had waited.
 */
export async function retryingLostLocks<T>(statement: () => PromiseLike<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (attempt >= TRIES || typeof code !== 'string' || !LOST_LOCK.has(code)) throw err;
      // A short random pause, so the two sides of a deadlock do not meet again at once.
      await sleep(5 + Math.random() * 15 * attempt);
    }
  }
}
