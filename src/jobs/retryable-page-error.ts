/**
 * The target answered with a status worth trying again (5xx, 429) while the item has retries
 * left: thrown before the charge, so the attempt is refunded and only the final outcome is charged.
 */
export class RetryablePageError extends Error {
  readonly outcome = 'target_unusable';

  constructor(readonly status: number) {
    super(`the target answered ${status}`);
    this.name = 'RetryablePageError';
  }
}
