import type { Request, Response } from 'express';
import type { Billing } from '../billing/billing.js';
import type { KeyAccount } from '../billing/billing-store.js';
import { InvalidKeyError } from '../billing/billing-refusals.js';
import { clientAddressOf } from '../http/client-address.js';
import type { SessionRecord } from './dashboard-ports.js';
import { adminCredentialHash, sameSecret, type DashboardSessions } from './dashboard-sessions.js';
import type { Viewer } from './pages/layout.js';
import { nonceOf } from './request-guard.js';
import { clearSessionCookie, sessionIdOf } from './session-cookie.js';

/** A visitor without a session: its pages have a nonce and no forms but sign-in. */
export const nobody = (res: Response): Viewer => ({ who: undefined, csrf: undefined, nonce: nonceOf(res) });

export type Identity = { role: 'admin' } | { role: 'key'; account: KeyAccount };

/** A signed-in request: its session, who it is now, and what its pages need. */
export interface Visit {
  sessionId: string;
  session: SessionRecord;
  identity: Identity;
  viewer: Viewer;
}

export interface VisitParts {
  sessions: DashboardSessions;
  billing: Pick<Billing, 'accountByHash'>;
  /** ADMIN_TOKEN; undefined: nobody signs in as the operator. */
  adminToken: string | undefined;
}

/**
 * Who a request is, decided again on every request from what the session stands on: an admin
 * session only while ADMIN_TOKEN is still the token it was opened with, a key's only while that
 * secret is the key's (or its previous one, within a rotation's grace: such a session may look,
 * not change the key, user-routes.ts) and the key is not revoked, and from where the key may be
 * used. A session that stands on nothing any more is ended at once.
 * IpRestrictedError (the key is used from elsewhere) goes to the caller: the session stays.
 */
export async function visitOf(parts: VisitParts, req: Request, res: Response): Promise<Visit | undefined> {
  const sessionId = sessionIdOf(req);
  const session = await parts.sessions.resume(sessionId);
  if (!session || sessionId === undefined) return undefined;
  const csrf = parts.sessions.csrfToken(sessionId);
  if (session.role === 'admin') {
    if (parts.adminToken !== undefined && sameSecret(session.credentialHash, adminCredentialHash(parts.adminToken))) {
      return { sessionId, session, identity: { role: 'admin' }, viewer: { who: { role: 'admin' }, csrf, nonce: nonceOf(res) } };
    }
  } else {
    try {
      const account = await parts.billing.accountByHash(session.credentialHash, clientAddressOf(req));
      if (account.id === session.apiKeyId) {
        return { sessionId, session, identity: { role: 'key', account }, viewer: { who: { role: 'key', prefix: account.prefix }, csrf, nonce: nonceOf(res) } };
      }
    } catch (err) {
      if (!(err instanceof InvalidKeyError)) throw err;
    }
  }
  await parts.sessions.end(session);
  clearSessionCookie(req, res);
  return undefined;
}
