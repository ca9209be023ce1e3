import express from 'express';
import type { Metrics } from '../observability/metrics.js';
import type { Readiness } from '../observability/readiness.js';

/**
 * The operator's endpoints, outside the API's document: liveness (the process answers), readiness
 * (the database answers and the browsers are warm; 503 otherwise, and while draining) and the
 * Prometheus metrics. None takes a key, and none says anything a key or a proxy could be read from.
 */
export function opsRoutes(readiness: Readiness, metrics: Metrics): express.Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  router.get('/readyz', async (_req, res) => {
    const report = await readiness.report();
    res.status(report.ready ? 200 : 503).json({ status: report.ready ? 'ready' : 'not ready', checks: report.checks });
  });
  router.get('/metrics', async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.text());
  });
  return router;
}
