import type { OperatorAddressesPort, SignInFailuresPort } from '../accounts/account-ports.js';
import type { SessionStorePort } from './dashboard-ports.js';
import { OPERATOR_ADDRESS_MEMORY_MS } from '../accounts/operator-addresses.js';
import { PeriodicJob } from '../time/periodic-job.js';

/** Batches one pass may delete of each table, so that a pass never holds the database long. */
const MAX_BATCHES = 20;

/**
 * Deletes expired sessions, sign-in failures that left the window and operator addresses not
 * used for 30 days, on a timer of its own: an
 * attack that never signs in still has its rows removed. Every instance runs it; deleting what
 * another instance deleted first is harmless.
 */
export class SessionUpkeep {
  private readonly job: PeriodicJob;

  constructor(
    private readonly parts: {
      sessions: SessionStorePort;
      failures: SignInFailuresPort;
      failureWindowMs: number;
      operators: OperatorAddressesPort;
      intervalMs: number;
      onError: (err: unknown) => void;
      now?: () => number;
    },
  ) {
    this.job = new PeriodicJob(() => this.runOnce(), parts.intervalMs, parts.onError);
  }

  /** The first pass after one interval: a start has nothing old to delete yet. */
  start(): void {
    this.job.start(false);
  }

  async runOnce(): Promise<void> {
    const now = (this.parts.now ?? Date.now)();
    for (let i = 0; i < MAX_BATCHES && (await this.parts.sessions.pruneExpired(now)) > 0; i++);
    for (let i = 0; i < MAX_BATCHES && (await this.parts.failures.pruneBefore(now - this.parts.failureWindowMs)) > 0; i++);
    for (let i = 0; i < MAX_BATCHES && (await this.parts.operators.pruneBefore(now - OPERATOR_ADDRESS_MEMORY_MS)) > 0; i++);
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
