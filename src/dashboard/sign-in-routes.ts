import express from 'express';
import { hashApiKey } from '../billing/billing.js';
import { InvalidKeyError, IpRestrictedError } from '../errors/billing-refusals.js';
import { clientAddressOf } from '../http/client-address.js';
import { adminCredentialHash, sameSecret } from './dashboard-sessions.js';
import type { DashboardParts } from './dashboard-parts.js';
import { field } from './form-fields.js';
import { errorPage } from './pages/error-page.js';
import { signInPage } from './pages/sign-in-page.js';
import { clearSessionCookie, sessionIdOf, setSessionCookie } from './session-cookie.js';
import { nobody } from './visits.js';

const MAX_SECRET_LENGTH = 256;

/**
 * Sign-in and sign-out. A sign-in opens a new session whatever the browser had (no fixation);
 * the secret comes in the POST body and is never repeated, logged or kept: a key's session
 * stands on the key's hash, an admin session on the token's digest. Both end the browser's
 * previous session by its cookie alone, whoever it stood for and wherever it is used from. A
 * key's previous secret, still in its grace period after a rotation, authenticates API calls
 * only: it does not sign in (whoever leaked it cannot take the key over from here).
 */
export function signInRoutes(parts: DashboardParts, form: express.RequestHandler): express.Router {
  const router = express.Router();
  const endCurrent = async (req: express.Request) => {
    const current = await parts.sessions.resume(sessionIdOf(req));
    if (current) await parts.sessions.end(current);
  };
  const refuse = (res: express.Response, status: number, text: string) => void res.status(status).type('html').send(String(signInPage(nobody(res), text)));

  router.post('/sign-in', form, async (req, res) => {
    const client = clientAddressOf(req);
    const who = await identify(parts, field(req.body, 'secret')?.trim() ?? '', client);
    // The secret is judged first; only a wrong one counts against the client (sign-in-limit.ts).
    const waitSeconds = who.kind === 'refused' || who.kind === 'replaced' ? await parts.signInLimit.failed(client) : await parts.signInLimit.blocked(client);
    if (waitSeconds !== undefined) {
      parts.metrics.signInFailed('limited');
      res.setHeader('Retry-After', String(waitSeconds));
      const minutes = Math.ceil(waitSeconds / 60);
      return refuse(res, 429, `Too many failed sign-ins from your address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
    }
    await endCurrent(req);
    if (who.kind === 'replaced') {
      parts.metrics.signInFailed('invalid');
      return refuse(res, 401, 'This secret was replaced by a rotation: it still works for API calls until its grace period ends, but it cannot sign in. Sign in with the key\'s current secret.');
    }
    if (who.kind === 'refused') {
      if (who.error instanceof IpRestrictedError) {
        parts.metrics.signInFailed('ip_restricted');
        return refuse(res, 403, who.error.message);
      }
      parts.metrics.signInFailed('invalid');
      return refuse(res, 401, 'That is not a valid API key or admin token.');
    }
    const started = who.kind === 'admin'
      ? await parts.sessions.start('admin', null, adminCredentialHash(who.token))
      : await parts.sessions.start('key', who.keyId, who.keyHash);
    setSessionCookie(req, res, started.id, parts.sessions.ttlMs);
    res.redirect(303, '/dashboard');
  });

  router.post('/sign-out', form, async (req, res) => {
    const id = sessionIdOf(req);
    const current = await parts.sessions.resume(id);
    if (current && id !== undefined && !parts.sessions.csrfValid(id, field(req.body, 'csrf'))) {
      res.status(403).type('html').send(String(errorPage(nobody(res), 403, 'The form is out of date: reload the page and try again.')));
      return;
    }
    if (current) await parts.sessions.end(current);
    clearSessionCookie(req, res);
    res.redirect(303, '/dashboard');
  });

  return router;
}

type Identity =
  | { kind: 'admin'; token: string }
  | { kind: 'key'; keyId: number; keyHash: string }
  /** A previous secret of the key, still in its grace period: it authenticates API calls, nothing more. */
  | { kind: 'replaced' }
  | { kind: 'refused'; error: InvalidKeyError | IpRestrictedError };

/** Whom the secret stands for, from this address; a key restricted to other addresses is refused. */
async function identify(parts: DashboardParts, secret: string, client: string): Promise<Identity> {
  if (parts.adminToken !== undefined && sameSecret(secret, parts.adminToken)) return { kind: 'admin', token: parts.adminToken };
  if (secret === '' || secret.length > MAX_SECRET_LENGTH) return { kind: 'refused', error: new InvalidKeyError() };
  const keyHash = hashApiKey(secret);
  let keyId: number;
  try {
    keyId = (await parts.billing.accountByHash(keyHash, client)).id;
  } catch (err) {
    if (err instanceof InvalidKeyError || err instanceof IpRestrictedError) return { kind: 'refused', error: err };
    throw err;
  }
  return (await parts.keyAdmin.isCurrentSecret(keyId, keyHash)) ? { kind: 'key', keyId, keyHash } : { kind: 'replaced' };
}
