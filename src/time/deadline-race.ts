import { ClientCancelledError } from './client-cancelled-error.js';

/** One way a race against some work can end before the work does. */
export interface RaceEnd {
  /** Ends the race when it aborts (a request's caller leaving, the shutdown's grace ending). */
  signal?: AbortSignal;
  /** Ends the race after this long (a deadline, a call's time limit). */
  afterMs?: number;
  /** What the race rejects with when this end comes first. */
  error: () => Error;
  /** Called when this end comes first (kill what runs the work, say). */
  onEnd?: () => void;
}

/**
 * `work`'s outcome, unless one of `ends` comes first: then the race rejects with that end's error,
 * and `work` is left to settle on its own (its rejection handled). The one race against a time or
 * a signal in the service: deadlines, time limits, a caller's hang-up, the shutdown's grace.
 */
export function race<T>(work: Promise<T>, ends: ReadonlyArray<RaceEnd | undefined>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const undo: Array<() => void> = [];
    let settled = false;
    const settle = (then: () => void) => {
      if (settled) return;
      settled = true;
      for (const u of undo) u();
      then();
    };
    for (const end of ends) {
      if (!end) continue;
      const lose = () =>
        settle(() => {
          end.onEnd?.();
          reject(end.error());
        });
      if (end.signal) {
        if (end.signal.aborted) {
          lose();
          break;
        }
        end.signal.addEventListener('abort', lose, { once: true });
        const signal = end.signal;
        undo.push(() => signal.removeEventListener('abort', lose));
      }
      if (end.afterMs !== undefined) {
        const timer = setTimeout(lose, Math.max(0, end.afterMs));
        undo.push(() => clearTimeout(timer));
      }
    }
    work.then(
      (value) => settle(() => resolve(value)),
      (err: unknown) => settle(() => reject(err)),
    );
  });
}

/** A race end for a caller that may leave: ClientCancelledError when `cancelled` aborts. */
export function callerLeaves(cancelled: AbortSignal | undefined): RaceEnd | undefined {
  return cancelled ? { signal: cancelled, error: () => new ClientCancelledError() } : undefined;
}

/** A time limit: `error` after `ms`. */
export function within(ms: number, error: () => Error): RaceEnd {
  return { afterMs: ms, error };
}
