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
