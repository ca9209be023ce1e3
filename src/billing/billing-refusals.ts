/**
 * Why the billing refused a request before anything was fetched. Not HTTP: the one translation
 * at the edge (to-api-error.ts) decides the status (403, 409, 429) and the words' frame.
 */
export abstract class BillingRefusal extends Error {
  abstract readonly outcome: 'invalid_key' | 'ip_restricted' | 'out_of_credits' | 'concurrency_limit' | 'budget_exceeded';
  /** The key refused, when it was known (not for an unknown or revoked one): its refusals are counted. */
  keyId: number | undefined;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }

  ofKey(keyId: number): this {
    this.keyId = keyId;
    return this;
  }
}

/** The key is unknown or revoked. */
export class InvalidKeyError extends BillingRefusal {
  readonly outcome = 'invalid_key';

  constructor() {
    super('Invalid API key.');
  }
}

/**
 * The key is restricted to addresses its caller is not at. The caller's own address is named (it
 * helps to see what a proxy in between made of it); the key's list never is.
 */
export class IpRestrictedError extends BillingRefusal {
  readonly outcome = 'ip_restricted';

  constructor(readonly clientAddress: string) {
    super(`An IP restriction applies to this API key: requests from this address (${clientAddress}) are not allowed.`);
  }
}

/** The key's period has fewer credits left than the request costs. */
export class InsufficientCreditsError extends BillingRefusal {
  readonly outcome = 'out_of_credits';

  constructor(cost: number, remaining: number, periodEnd: number) {
    super(`Not enough credits: this request costs ${cost} and ${remaining} remain until ${new Date(periodEnd).toISOString()}.`);
  }
}

/** Every concurrency slot of the key's plan is held. */
export class ConcurrencyLimitError extends BillingRefusal {
  readonly outcome = 'concurrency_limit';

  constructor(maxConcurrency: number) {
    super(`Concurrent request limit of your plan (${maxConcurrency}) reached. Wait for a request to finish or upgrade the plan.`);
  }
}

/** The key's browser requests failed uncharged too often this hour. */
export class BrowserBudgetExceededError extends BillingRefusal {
  readonly outcome = 'budget_exceeded';

  constructor(
    failures: number,
    attempts: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      `Too many costly requests of this key (browser=true, or with Markdown, text or extract_rules) failed uncharged in the last hour (${failures} of ${attempts}). ` +
        'They resume when the hour ends; plain requests (browser=false, answered with the page itself) are not limited.',
    );
  }
}

