import type { Knex } from 'knex';

/**
 * Credits move only through single conditional UPDATEs, so the balance is exact under any
 * concurrency and across processes, and never goes below zero.
 */
export class CreditStore {
  constructor(private readonly knex: Knex) {}

  /**
   * Takes `cost` credits from the key's period ending at `periodEnd`, if it still has them.
   * False when it has not (or the period has just been reset: the caller re-reads the key).
   */
  async reserve(apiKeyId: number, cost: number, periodEnd: number): Promise<boolean> {
    if (cost === 0) return true;
    const changed = await this.knex('api_keys')
      .where({ id: apiKeyId, period_end: periodEnd })
      .whereNull('revoked_at')
      .andWhere('credits_remaining', '>=', cost)
      .decrement('credits_remaining', cost);
    return changed === 1;
  }

  /**
   * Gives a reservation back after a failed request, only into the period it was taken from:
   * after a reset the balance is already full, and a refund would exceed the plan.
   */
  async refund(apiKeyId: number, cost: number, periodEnd: number): Promise<void> {
    if (cost === 0) return;
    await this.knex('api_keys')
      .where({ id: apiKeyId, period_end: periodEnd })
      .update({
        credits_remaining: this.knex.raw('CASE WHEN credits_remaining + ? > credits_total THEN credits_total ELSE credits_remaining + ? END', [
          cost,
          cost,
        ]),
      });
  }
}
