import type { DeliveryRecord, KeyJobRecord } from '../webhooks/webhook-ports.js';

/** What the dashboard keeps, and the storage it is given for it (store/dashboard-sessions-sql.ts implements it). */

export type SessionRole = 'admin' | 'key';

export interface SessionRecord {
  idHash: string;
  role: SessionRole;
  apiKeyId: number | null;
  credentialHash: string;
  createdAt: number;
  expiresAt: number;
}

/** The dashboard's sessions, shared by every instance. */
export interface SessionStorePort {
  insert(session: SessionRecord): Promise<void>;
  /** The session, if it exists and has not expired by `now`. */
  find(idHash: string, now: number): Promise<SessionRecord | undefined>;
  /** The session now stands on another credential (its key's rotated secret). */
  rebind(idHash: string, credentialHash: string): Promise<void>;
  /** A one-use form's id, claimed once: false when it was claimed before. */
  claimForm(idHash: string, formId: string): Promise<boolean>;
  delete(idHash: string): Promise<void>;
  /** Keeps the newest `keep` sessions of a role and key, ending the others. */
  trim(role: SessionRole, apiKeyId: number | null, keep: number): Promise<void>;
  pruneExpired(now: number): Promise<number>;
}

/** A key's webhook secret, deliveries and jobs, as the dashboard shows and changes them (webhooks/webhook-admin.ts implements it). */
export interface WebhookViewPort {
  secret(apiKeyId: number): Promise<string>;
  rotate(actor: string, apiKeyId: number): Promise<string>;
  deliveries(apiKeyId: number, limit?: number): Promise<DeliveryRecord[]>;
  jobs(apiKeyId: number, limit?: number): Promise<KeyJobRecord[]>;
  replay(id: string): Promise<DeliveryRecord>;
}
