import type { components } from '../generated/admin-types.js';

/** What a change touched, as the admin document defines it. Never a secret: a key appears as its display prefix. */
export type AuditState = NonNullable<components['schemas']['AuditState']>;

export type AuditAction = components['schemas']['AuditEntry']['action'];

export interface AuditEntry {
  /** 'admin', 'cli', or 'key:<display prefix>'. */
  actor: string;
  action: AuditAction;
  apiKeyId: number;
  keyPrefix: string;
  before: AuditState | null;
  after: AuditState | null;
}

export interface AuditRecord extends AuditEntry {
  id: number;
  at: number;
}
