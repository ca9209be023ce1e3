/**
 * The storage behind a port could not be reached or used at all: down, restarting, out of
 * connections, or frozen past the time its caller could give it. The one thing to do is retry.
 * The store adapters raise it in place of their drivers' errors (store/driver-errors.ts), so no
 * rule above the store knows a driver. `mayHaveRun`: a write sent before the connection was lost
 * may have been applied (its answer never came).
 */
export class StoreUnavailableError extends Error {
  readonly outcome = 'store_unavailable';

  constructor(
    readonly mayHaveRun: boolean,
    options?: { cause?: unknown; message?: string },
  ) {
    super(options?.message ?? 'the store is unavailable', { cause: options?.cause });
    this.name = 'StoreUnavailableError';
  }
}
