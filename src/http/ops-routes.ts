import { createHash, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { UnauthorizedError } from './errors/api-error.js';
import type { Metrics } from '../observability/metrics.js';
import type { Readiness } from '../observability/readiness.js';
import { bearerOf } from './admin-auth.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The operator's endpoints, outside the API's document: liveness (the process answers), readiness
 * (the database answers and the browsers are warm; 503 otherwise, and while draining) and the
 * Prometheus metrics. None takes a key, and none says anything a key or a proxy could be read from.
 * With METRICS_TOKEN the metrics ask for it (`Authorization: Bearer`, compared in constant time
 * as digests); they tell how the service is used and attacked, which is nobody else's business.
 */
export function opsRoutes(readiness: Readiness, metrics: Metrics, metricsToken?: string): express.Router {
  const expected = metricsToken === undefined ? undefined : digest(metricsToken);
  const router = express.Router();
  router.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  router.get('/readyz', async (_req, res) => {
    const report = await readiness.report();
    res.status(report.ready ? 200 : 503).json({ status: report.ready ? 'ready' : 'not ready', checks: report.checks });
  });
  router.get('/metrics', async (req, res) => {
    if (expected) {
      const sent = bearerOf(req.headers.authorization);
      if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
        throw new UnauthorizedError('The metrics need their token (Authorization: Bearer <METRICS_TOKEN>).');
      }
    }
    res.type(metrics.contentType).send(await metrics.text());
  });
  return router;
}
