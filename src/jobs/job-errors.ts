/** No such job for this key: unknown, pruned, or another key's (never told apart); `expired` when its results have passed their TTL. */
export class JobNotFoundError extends Error {
  readonly outcome = 'job_not_found';

  constructor(readonly expired = false) {
    super(expired ? 'Job expired' : 'Job not found');
    this.name = 'JobNotFoundError';
  }
}

/** A submission the job engine will not take (too many URLs, none at all). */
export class JobRefusedError extends Error {
  readonly outcome = 'job_refused';

  constructor(message: string) {
    super(message);
    this.name = 'JobRefusedError';
  }
}
