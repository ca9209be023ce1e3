/** What the account operations refuse; errors/to-api-error.ts gives each its status. */
export abstract class AccountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class KeyNotFoundError extends AccountError {
  constructor() {
    super('No key has this id.');
  }
}

export class KeyRevokedError extends AccountError {
  constructor() {
    super('The key is revoked; a revoked key is not changed or rotated.');
  }
}

/**
 * A dashboard session stands on a secret that is no longer the key's current one (a previous
 * secret in its grace period only authenticates API calls): it may not change the key.
 */
export class SecretReplacedError extends AccountError {
  constructor() {
    super('This session was opened with a secret of the key that has been replaced since. Sign in with the key\'s current secret to rotate it.');
  }
}

/** A field of a change or a query that the rules refuse; `field` is its path from the body or query. */
export interface InvalidField {
  field: [string, ...Array<string | number>];
  msg: string;
  type: string;
}

export class InvalidAccountChangeError extends AccountError {
  constructor(readonly issues: InvalidField[]) {
    super(issues.map((i) => `${i.field.join('.')}: ${i.msg}`).join('; '));
  }
}
