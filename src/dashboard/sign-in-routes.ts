import express from 'express';
import { hashApiKey } from '../billing/billing.js';
import { InvalidKeyError, IpRestrictedError } from '../billing/billing-refusals.js';
import { clientAddressOf } from '../http/client-address.js';
import { adminCredentialHash, sameSecret } from './dashboard-sessions.js';
import type { DashboardParts } from './dashboard-parts.js';
import { field } from './form-fields.js';
import { errorPage } from './pages/error-page.js';
import { signInPage } from './pages/sign-in-page.js';
import { clearSessionCookie, sessionIdOf, setSessionCookie } from './session-cookie.js';
import { nobody } from './visits.js';
import type { Refusal } from '../accounts/sign-in-limit.js';

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

  const tooMany = (res: express.Response, refusal: Refusal) => {
    parts.metrics.signInFailed(refusal.scope === 'global' ? 'global' : 'limited');
    res.setHeader('Retry-After', String(refusal.waitSeconds));
    const minutes = Math.ceil(refusal.waitSeconds / 60);
    const why = refusal.scope === 'global'
      ? 'Too many failed sign-ins from many addresses: for now the admin token is accepted only from addresses it was used from before.'
      : 'Too many failed sign-ins from your address.';
    refuse(res, 429, `${why} Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
  };

  router.post('/sign-in', form, async (req, res) => {
    const secret = field(req.body, 'secret')?.trim() ?? '';
    // No secret, no attempt: nothing is counted or asked of the database (any page can post an empty form).
    if (secret === '') {
      parts.metrics.signInFailed('invalid');
      return refuse(res, 401, 'Enter your API key or the admin token.');
    }
    const client = clientAddressOf(req);
    // Refused before the secret is judged: the answer and its cost are the same for the right one and a wrong one.
    const refused = await parts.signInLimit.admit(client);
    if (refused?.scope === 'address') return tooMany(res, refused);
    // Past the global limit the admin token is not judged from here; a key still signs in.
    const who = await identify(parts, secret, client, refused === undefined);
    if (refused && who.kind !== 'key') return tooMany(res, refused);
    if (who.kind === 'refused' || who.kind === 'replaced') {
      const limited = await parts.signInLimit.failed(client);
      if (limited) return tooMany(res, limited);
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
    if (who.kind === 'admin') await parts.signInLimit.succeeded(client);
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

/**
 * Whom the secret stands for, from this address; a key restricted to other addresses is refused.
 * `judgeAdmin` false: the admin token is not compared (the global limit holds for this client).
 */
async function identify(parts: DashboardParts, secret: string, client: string, judgeAdmin: boolean): Promise<Identity> {
  if (judgeAdmin && parts.adminToken !== undefined && sameSecret(secret, parts.adminToken)) return { kind: 'admin', token: parts.adminToken };
  if (secret.length > MAX_SECRET_LENGTH) return { kind: 'refused', error: new InvalidKeyError() };
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
