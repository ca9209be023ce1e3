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
 * previous session by its cookie alone, whoever it stood for and wherever it is used from.
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
    const attempt = await parts.signInLimit.begin(client);
    if (!attempt.allowed) {
      parts.metrics.signInFailed('limited');
      res.setHeader('Retry-After', String(attempt.retryAfterSeconds));
      const minutes = Math.ceil(attempt.retryAfterSeconds / 60);
      return refuse(res, 429, `Too many failed sign-ins from your address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
    }
    const secret = field(req.body, 'secret')?.trim() ?? '';
    await endCurrent(req);
    if (parts.adminToken !== undefined && sameSecret(secret, parts.adminToken)) {
      await attempt.succeeded();
      const started = await parts.sessions.start('admin', null, adminCredentialHash(parts.adminToken));
      setSessionCookie(req, res, started.id, parts.sessions.ttlMs);
      return void res.redirect(303, '/dashboard');
    }
    try {
      if (secret === '' || secret.length > MAX_SECRET_LENGTH) throw new InvalidKeyError();
      const keyHash = hashApiKey(secret);
      const account = await parts.billing.accountByHash(keyHash, client);
      await attempt.succeeded();
      const started = await parts.sessions.start('key', account.id, keyHash);
      setSessionCookie(req, res, started.id, parts.sessions.ttlMs);
      res.redirect(303, '/dashboard');
    } catch (err) {
      if (err instanceof IpRestrictedError) {
        parts.metrics.signInFailed('ip_restricted');
        refuse(res, 403, err.message);
      } else if (err instanceof InvalidKeyError) {
        parts.metrics.signInFailed('invalid');
        refuse(res, 401, 'That is not a valid API key or admin token.');
      } else {
        throw err;
      }
    }
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
