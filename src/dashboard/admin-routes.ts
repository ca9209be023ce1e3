import express from 'express';
import type { NewKeyInput, KeyChangeInput } from '../accounts/key-admin.js';
import { ConflictError, NotFoundError } from '../http/errors/api-error.js';
import { accountView } from './account-view.js';
import type { DashboardParts } from './dashboard-parts.js';
import { formError } from './form-error.js';
import { field, keyChangeBody, newKeyBody, rotateBody } from './form-fields.js';
import { keyPage } from './pages/key-page.js';
import { keysPage, type KeysQuery } from './pages/keys-page.js';
import { secretPage } from './pages/secret-page.js';
import { webhookView } from './webhook-view.js';
import type { Visit } from './visits.js';

const ID = /^[1-9]\d{0,11}$/;
const DELIVERY_ID = /^[A-Za-z0-9_-]{1,40}$/;
const text = (value: unknown, max: number) => (typeof value === 'string' && value !== '' && value.length <= max ? value : undefined);
/** What a whole secret looks like (api-key-store.ts makes them): searched for, and shown, by its display prefix alone. */
const SECRET = /^sg_[A-Za-z0-9_-]{20,}$/;
const searchText = (value: unknown) => {
  const q = text(value, 100)?.trim();
  return q && SECRET.test(q) ? q.slice(0, 10) : q || undefined;
};
const ALREADY_SENT = 'This form was sent already (the page was reloaded, or sent twice): nothing was done again.';

/**
 * The operator's pages: every key, one key, and the admin API's changes made from forms. Each
 * form becomes the admin API's own body and passes that operation's validation, then the same
 * KeyAdmin call the API makes; the audit log names the actor `admin`. A refused change shows on
 * the page it came from, as the API's 404, 409 or 422 would say it.
 */
export function adminRoutes(parts: DashboardParts, visitOfRequest: (res: express.Response) => Visit): { page: express.RequestHandler; router: express.Router } {
  const now = () => (parts.now ?? Date.now)();
  const catalog = parts.keyAdmin.catalog;

  async function listPage(res: express.Response, query: KeysQuery, error?: { status: number; message: string }): Promise<void> {
    const revoked = query.status === 'revoked' ? true : query.status === 'active' ? false : undefined;
    const list = await parts.keyAdmin.list({ q: query.q, plan: query.plan, revoked, cursor: query.cursor, limit: 50 });
    const page = keysPage(visitOfRequest(res).viewer, catalog, query, list, parts.sessions.newFormId(), error?.message);
    res.status(error?.status ?? 200).type('html').send(String(page));
  }

  async function onePage(res: express.Response, id: number, error?: { status: number; message: string }): Promise<void> {
    const key = await parts.keyAdmin.get(id);
    const [view, audit, webhooks] = await Promise.all([accountView(parts.reports, key, now()), parts.reports.audit({ keyId: id, limit: 50 }), webhookView(parts.webhooks, id)]);
    const page = keyPage(visitOfRequest(res).viewer, catalog, view, audit.items, parts.sessions.newFormId(), webhooks, error?.message);
    res.status(error?.status ?? 200).type('html').send(String(page));
  }

  /** A change's failure the caller can mend is shown on `page`; anything else is the router's. */
  const orShow = (page: (error: { status: number; message: string }) => Promise<void>) => async (err: unknown) => {
    const shown = formError(err);
    if (!shown) throw err;
    await page(shown);
  };

  const router = express.Router();
  /** Only the operator reaches these; anyone else finds nothing here. */
  router.use((_req, res, next) => {
    if (visitOfRequest(res).identity.role !== 'admin') throw new NotFoundError('Not Found');
    next();
  });
  const keyId = (req: express.Request) => {
    if (typeof req.params.id !== 'string' || !ID.test(req.params.id)) throw new NotFoundError('No key has this id.');
    return Number(req.params.id);
  };
  const oneUse = async (req: express.Request, res: express.Response) => {
    if (!(await parts.sessions.claimForm(visitOfRequest(res).session, field(req.body, 'form_id')))) throw new ConflictError(ALREADY_SENT);
  };

  router.post('/search', async (req, res) => {
    const b = req.body as unknown;
    const cursor = field(b, 'cursor');
    await listPage(res, { q: searchText(field(b, 'q')), plan: text(field(b, 'plan'), 64), status: text(field(b, 'status'), 10), cursor: cursor && ID.test(cursor) ? cursor : undefined });
  });

  router.get('/keys/:id', async (req, res) => onePage(res, keyId(req)));

  router.post('/keys', async (req, res) => {
    try {
      await oneUse(req, res);
      const body = parts.validate('adminCreateKey', { body: newKeyBody(req.body) }) as NewKeyInput;
      const { key, record } = await parts.keyAdmin.create('admin', body);
      res.status(201).type('html').send(String(secretPage(visitOfRequest(res).viewer, 'Key created', key, record, `/dashboard/keys/${record.id}`)));
    } catch (err) {
      await orShow((error) => listPage(res, {}, error))(err);
    }
  });

  router.post('/keys/:id', async (req, res) => {
    const id = keyId(req);
    try {
      const change = keyChangeBody(req.body, await parts.keyAdmin.get(id));
      if (Object.keys(change).length > 0) {
        const body = parts.validate('adminUpdateKey', { path: { id: String(id) }, body: change }) as KeyChangeInput;
        await parts.keyAdmin.update('admin', id, body);
      }
      res.redirect(303, `/dashboard/keys/${id}`);
    } catch (err) {
      await orShow((error) => onePage(res, id, error))(err);
    }
  });

  router.post('/keys/:id/rotate', async (req, res) => {
    const id = keyId(req);
    try {
      await oneUse(req, res);
      const body = parts.validate('adminRotateKey', { path: { id: String(id) }, body: rotateBody(req.body) }) as { grace_seconds: number };
      const { key, record } = await parts.keyAdmin.rotate('admin', id, body.grace_seconds);
      res.type('html').send(String(secretPage(visitOfRequest(res).viewer, 'Key rotated', key, record, `/dashboard/keys/${id}`)));
    } catch (err) {
      await orShow((error) => onePage(res, id, error))(err);
    }
  });

  router.post('/keys/:id/webhook-secret/rotate', async (req, res) => {
    const id = keyId(req);
    try {
      await oneUse(req, res);
      await parts.webhooks.rotate('admin', id);
      res.redirect(303, `/dashboard/keys/${id}`);
    } catch (err) {
      await orShow((error) => onePage(res, id, error))(err);
    }
  });

  router.post('/keys/:id/webhook-deliveries/:delivery/replay', async (req, res) => {
    const id = keyId(req);
    const delivery = String(req.params.delivery);
    if (!DELIVERY_ID.test(delivery)) throw new NotFoundError('No webhook delivery has this id.');
    const found = (await parts.webhooks.deliveries(id, 200)).some((d) => d.id === delivery);
    if (!found) throw new NotFoundError('No webhook delivery of this key has this id.');
    await parts.webhooks.replay(delivery);
    res.redirect(303, `/dashboard/keys/${id}`);
  });

  router.post('/keys/:id/revoke', async (req, res) => {
    const id = keyId(req);
    await parts.keyAdmin.revoke('admin', id);
    res.redirect(303, `/dashboard/keys/${id}`);
  });

  return { page: async (_req, res) => listPage(res, {}), router };
}
