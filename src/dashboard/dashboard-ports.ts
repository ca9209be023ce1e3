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
