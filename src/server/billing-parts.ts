import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Billing } from '../billing/billing.js';
import type { BillingStore, LedgerBooks } from '../billing/billing-store.js';
import { DeferredWrites } from '../billing/deferred-writes.js';
import { LedgerUpkeep } from '../billing/ledger-upkeep.js';
import { Reconciler } from '../billing/reconciler.js';
import { RefusalTally, type RefusalCounts } from '../billing/refusal-tally.js';
import type { Config } from '../config/config.js';

/** The billing and the work that keeps the books: reconciliation, the ledger's upkeep, the refusal counts. */
export function billingParts(config: Config, ports: { billing: BillingStore; books: LedgerBooks; refusals: RefusalCounts }, logger: Logger) {
  const billing = new Billing({
    store: ports.billing,
    // Refunds and slot releases that meet a database outage are retried; what may still be wrong
    // when it ends (a debit cut while committing, a refund given up) is logged for the operator.
    deferred: new DeferredWrites({
      onLost: (what, err) => logger.error({ err }, `${what} was lost`),
      onUncertain: (what, err) => logger.error({ err }, `${what} may have been applied before its connection was lost; check the key's balance`),
    }),
    budget: { allowance: config.browserFailureAllowance, windowMs: 3_600_000 },
    leaseGraceMs: config.leaseGraceMs,
    // This process, as the ledger names the requests it reserves.
    instanceId: randomUUID(),
    onReleaseFailed: (err) => logger.error({ err }, 'lease release failed'),
  });
  const reconciler = new Reconciler({
    store: ports.billing,
    books: ports.books,
    marginMs: config.ledger.reconcileMarginMs,
    intervalMs: config.ledger.reconcileIntervalMs,
    onRefunded: (count) => logger.info({ count }, 'reconciled: refunded reservations their requests could not settle'),
    onError: (err) => logger.warn({ err }, 'reconciliation failed; it runs again'),
  });
  const upkeep = new LedgerUpkeep({
    books: ports.books,
    retentionMs: config.ledger.retentionMs,
    intervalMs: config.ledger.upkeepIntervalMs,
    onError: (err) => logger.warn({ err }, 'ledger upkeep failed; it runs again'),
  });
  const refusals = new RefusalTally(ports.refusals, (err) => logger.warn({ err }, 'refusal counts could not be written'));
  return {
    billing,
    refusals,
    start(): void {
      reconciler.start();
      upkeep.start();
    },
    async stop(): Promise<void> {
      await reconciler.stop();
      await upkeep.stop();
      await billing.close();
      await refusals.close();
    },
  };
}
