import express from 'express';
import { SecretReplacedError } from '../accounts/account-errors.js';
import { hashApiKey } from '../billing/billing.js';
import { ConflictError } from '../http/errors/api-error.js';
import { accountView } from './account-view.js';
import type { DashboardParts } from './dashboard-parts.js';
import { formError } from './form-error.js';
import { field, rotateBody } from './form-fields.js';
import { secretPage } from './pages/secret-page.js';
import { userPage } from './pages/user-page.js';
import type { Visit } from './visits.js';
import { webhookView } from './webhook-view.js';

type KeyVisit = Visit & { identity: { role: 'key' } };

/**
 * A user on their own key: its page, and its rotation (audited as `key:<prefix>`), which only a
 * session standing on the key's current secret may make, with a grace the page offers.
 */
export function userRoutes(parts: DashboardParts, visitOfRequest: (res: express.Response) => Visit): { page: express.RequestHandler; router: express.Router } {
  const now = () => (parts.now ?? Date.now)();

  async function render(res: express.Response, error?: { status: number; message: string }): Promise<void> {
    const visit = visitOfRequest(res) as KeyVisit;
    const id = visit.identity.account.id;
    const [key, current] = await Promise.all([parts.keyAdmin.get(id), parts.keyAdmin.isCurrentSecret(id, visit.session.credentialHash)]);
    // A session opened with a secret rotated away since may still look (until its grace ends), not rotate.
    const formId = current ? parts.sessions.newFormId() : undefined;
    const page = userPage(visit.viewer, await accountView(parts.reports, key, now()), formId, await webhookView(parts.webhooks, id), error?.message);
    res.status(error?.status ?? 200).type('html').send(String(page));
  }

  const router = express.Router();
  router.post('/rotate', async (req, res) => {
    const visit = visitOfRequest(res);
    if (visit.identity.role !== 'key') return void res.redirect(303, '/dashboard');
    const { account } = visit.identity;
    let rotated;
    try {
      if (!(await parts.sessions.claimForm(visit.session, field(req.body, 'form_id')))) {
        throw new ConflictError('This form was sent already (the page was reloaded, or sent twice): the key was not rotated again.');
      }
      const body = parts.validate('adminRotateKey', { path: { id: String(account.id) }, body: rotateBody(req.body) }) as { grace_seconds: number };
      rotated = await parts.keyAdmin.rotateOwn(`key:${account.prefix}`, account.id, body.grace_seconds, visit.session.credentialHash);
    } catch (err) {
      const shown = formError(err);
      if (!shown) throw err;
      return render(res, shown);
    }
    // This session now stands on the new secret (others opened with the old one end with its
    // grace). Should that write fail, the secret is still shown: it is the only time it can be.
    await parts.sessions.rebind(visit.session, hashApiKey(rotated.key)).catch((err: unknown) => parts.logger.error({ err }, 'a rotated key\'s dashboard session could not follow it'));
    const viewer = { ...visit.viewer, who: { role: 'key' as const, prefix: rotated.record.prefix } };
    res.type('html').send(String(secretPage(viewer, 'Your key was rotated', rotated.key, rotated.record, '/dashboard')));
  });
  /** Only a session on the key's current secret may rotate its webhook secret, as for the key itself. */
  router.post('/webhook-secret/rotate', async (req, res) => {
    const visit = visitOfRequest(res);
    if (visit.identity.role !== 'key') return void res.redirect(303, '/dashboard');
    const { account } = visit.identity;
    try {
      if (!(await parts.keyAdmin.isCurrentSecret(account.id, visit.session.credentialHash))) throw new SecretReplacedError();
      if (!(await parts.sessions.claimForm(visit.session, field(req.body, 'form_id')))) {
        throw new ConflictError('This form was sent already (the page was reloaded, or sent twice): the webhook secret was not rotated again.');
      }
      await parts.webhooks.rotate(`key:${account.prefix}`, account.id);
    } catch (err) {
      const shown = formError(err);
      if (!shown) throw err;
      return render(res, shown);
    }
    res.redirect(303, '/dashboard');
  });
  return { page: async (_req, res) => render(res), router };
}
