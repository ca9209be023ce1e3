import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SessionRecord, SessionRole, SessionStorePort } from './dashboard-ports.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Two strings compared in constant time (as digests: not even a length shows). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** The digest an admin session stands on: a new ADMIN_TOKEN ends every session opened with the old one. */
export const adminCredentialHash = (token: string) => sha256(`scrapegate-admin-token:${token}`);

/** Sessions one key (or the operator) may hold at once; a new sign-in past it ends the oldest. */
const SESSIONS_PER_OWNER = 20;

export interface StartedSession {
  /** The cookie's value: 256 random bits, stored nowhere but in the browser (the database keeps its SHA-256). */
  id: string;
  record: SessionRecord;
}

/**
 * Server-side sessions. The cookie carries only a random id; what it may do is looked up on every
 * request, so ending it (sign-out, a revoked or rotated key, a new admin token) takes effect at once.
 * The CSRF token is derived from the id: as secret as the cookie, and never stored.
 */
export class DashboardSessions {
  constructor(
    private readonly sql: SessionStorePort,
    private readonly options: { ttlMs: number; now?: () => number },
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  async start(role: SessionRole, apiKeyId: number | null, credentialHash: string): Promise<StartedSession> {
    const now = this.now();
    const id = randomBytes(32).toString('base64url');
    const record = { idHash: sha256(id), role, apiKeyId, credentialHash, createdAt: now, expiresAt: now + this.options.ttlMs };
    await this.sql.insert(record);
    await this.sql.trim(role, apiKeyId, SESSIONS_PER_OWNER);
    return { id, record };
  }

  /** The live session a cookie names; undefined for a malformed, unknown or expired one. */
  async resume(id: string | undefined): Promise<SessionRecord | undefined> {
    if (id === undefined || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    return this.sql.find(sha256(id), this.now());
  }

  end(record: SessionRecord): Promise<void> {
    return this.sql.delete(record.idHash);
  }

  rebind(record: SessionRecord, credentialHash: string): Promise<void> {
    return this.sql.rebind(record.idHash, credentialHash);
  }

  csrfToken(id: string): string {
    return createHash('sha256').update(`scrapegate-dashboard-csrf:${id}`).digest('base64url');
  }

  csrfValid(id: string, token: unknown): boolean {
    return typeof token === 'string' && sameSecret(token, this.csrfToken(id));
  }

  /** A fresh id for a one-use form (creating or rotating a key). */
  newFormId(): string {
    return randomBytes(16).toString('base64url');
  }

  /** False for a malformed id, or one this session sent already. */
  async claimForm(record: SessionRecord, formId: unknown): Promise<boolean> {
    if (typeof formId !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(formId)) return false;
    return this.sql.claimForm(record.idHash, formId);
  }
}
