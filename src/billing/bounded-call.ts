import { StoreUnavailableError } from './store-unavailable-error.js';
import { race, within } from '../time/deadline-race.js';

/**
 * A billing call given `ms` in all, waiting for a pooled connection included: a request answers
 * within its deadline even when the database is frozen. Past the limit the call is left to finish
 * or fail on its own; every billing write applies once and the ledger settles what a caller gave
 * up on, so an abandoned call is never wrong, only late.
 */
export function boundedCall<T>(what: string, ms: number, call: () => Promise<T>): Promise<T> {
  const limit = Math.max(1, Math.ceil(ms));
  return race(call(), [within(limit, () => new StoreUnavailableError(true, { message: `${what} took longer than ${limit} ms` }))]);
}
