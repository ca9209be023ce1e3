import express from 'express';
import { ApiError } from '../http/errors/api-error.js';
import { IpRestrictedError } from '../billing/billing-refusals.js';
import { inQuery, toApiError } from '../http/errors/to-api-error.js';
import { adminRoutes } from './admin-routes.js';
import { dashboardAssets } from './dashboard-assets.js';
import type { DashboardParts } from './dashboard-parts.js';
import { field } from './form-fields.js';
import { errorPage } from './pages/error-page.js';
import { signInPage } from './pages/sign-in-page.js';
import { dashboardHeaders, foreignPostReason, nonceOf } from './request-guard.js';
import { sessionIdOf } from './session-cookie.js';
import { signInRoutes } from './sign-in-routes.js';
import { userRoutes } from './user-routes.js';
import { nobody, visitOf, type Visit } from './visits.js';

const FORM_LIMIT_BYTES = 32 * 1024;

declare global {
  namespace Express {
    interface Locals {
      /** The signed-in request (dashboard routes past the session check). */
      visit?: Visit;
    }
  }
}

const visitOfRequest = (res: express.Response): Visit => {
  if (!res.locals.visit) throw new Error('a dashboard route ran without a session');
  return res.locals.visit;
};

function sendPage(res: express.Response, status: number, text: string): void {
  res.status(status).type('html').send(String(errorPage(res.locals.visit?.viewer ?? nobody(res), status, text)));
}

/**
 * /dashboard: sign-in, a user's own key, the operator's keys. Every POST must come from one of its
 * own pages (request-guard.ts) and, once signed in, carry the session's CSRF token.
 */
export function dashboardRouter(parts: DashboardParts): express.Router {
  const router = express.Router({ caseSensitive: true });
  router.get('/assets/:name', dashboardAssets());
  router.use(dashboardHeaders());
  const form = express.urlencoded({ extended: false, limit: FORM_LIMIT_BYTES, parameterLimit: 50 });
  router.use((req, res, next) => {
    const foreign = req.method === 'GET' || req.method === 'HEAD' ? undefined : foreignPostReason(req);
    if (foreign) return void sendPage(res, 403, `Refused: ${foreign}.`);
    next();
  });
  router.use(signInRoutes(parts, form));

  router.use(async (req, res, next) => {
    const visit = await visitOf(parts, req, res).catch((err: unknown) => {
      if (!(err instanceof IpRestrictedError)) throw err;
      // The key may not be used from here: its page is refused, but the session can still be ended.
      const id = sessionIdOf(req) ?? '';
      res.status(403).type('html').send(String(errorPage({ who: { role: 'key', prefix: undefined }, csrf: parts.sessions.csrfToken(id), nonce: nonceOf(res) }, 403, err.message)));
      return null;
    });
    if (visit === null) return;
    if (!visit) {
      if (req.method === 'GET' && req.path === '/') return void res.type('html').send(String(signInPage(nobody(res))));
      if (req.method === 'GET') return void res.redirect(303, '/dashboard');
      return void sendPage(res, 403, 'Your session has ended: sign in again.');
    }
    res.locals.visit = visit;
    next();
  });
  router.use(form, (req, res, next) => {
    if (req.method !== 'POST') return next();
    const visit = visitOfRequest(res);
    if (!parts.sessions.csrfValid(visit.sessionId, field(req.body, 'csrf'))) return void sendPage(res, 403, 'The form is out of date: reload the page and try again.');
    next();
  });

  const user = userRoutes(parts, visitOfRequest);
  const admin = adminRoutes(parts, visitOfRequest);
  router.get('/', (req, res, next) => (visitOfRequest(res).identity.role === 'admin' ? admin.page : user.page)(req, res, next));
  router.use(user.router);
  router.use(admin.router);
  router.use((_req, res) => sendPage(res, 404, 'There is nothing here.'));

  const errors: express.ErrorRequestHandler = (err, req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    if (err instanceof IpRestrictedError) return void sendPage(res, 403, err.message);
    const apiError = toApiError(err, inQuery, FORM_LIMIT_BYTES);
    if (apiError instanceof ApiError && apiError.status < 500) return void sendPage(res, apiError.status, apiError.message);
    parts.logger.error({ err, method: req.method, path: req.path }, 'dashboard failure');
    sendPage(res, 500, 'Something failed on our side. Try again shortly.');
  };
  router.use(errors);
  return router;
}
