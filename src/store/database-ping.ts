import type { Database } from './database.js';

/** True when the database answers a trivial query within `timeoutMs` (readiness, not liveness). */
export async function databaseAnswers(db: Database, timeoutMs: number): Promise<boolean> {
  try {
    await db.knex.raw('select 1').timeout(timeoutMs, { cancel: false });
    return true;
  } catch {
    return false;
  }
}
