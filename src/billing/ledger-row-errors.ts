/**
 * A job item's attempt meeting its own ledger row (its id is the item's). Neither is a refusal of
 * the key: the job engine reads them to finish or to try the item again later.
 */

/** The item was already charged by an attempt whose end was lost: its stored answer stands. */
export class AlreadyChargedError extends Error {
  constructor(readonly requestId: string) {
    super(`request ${requestId} is already charged`);
    this.name = 'AlreadyChargedError';
  }
}

/** Another attempt of the same item is reserving right now: this one steps back and runs later. */
export class LedgerRowExistsError extends Error {
  constructor(readonly requestId: string) {
    super(`request ${requestId} already has its ledger row`);
    this.name = 'LedgerRowExistsError';
  }
}
