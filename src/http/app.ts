import express from 'express';
import type { Logger } from 'pino';
import type { OpenApiRouter } from '../api/openapi-router.js';
import { errorMiddleware } from '../errors/error-middleware.js';
import { accessLog } from './access-log.js';
import type { SpecAssets } from './spec-assets.js';

export interface AppParts {
  router: OpenApiRouter;
  spec: SpecAssets;
  logger: Logger;
  maxRequestBodyBytes: number;
}

export function createApp({ router, spec, logger, maxRequestBodyBytes }: AppParts): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Repeated parameters become arrays and nothing else is interpreted (`a[b]=c` stays a plain name).
  app.set('query parser', 'simple');
  app.use(accessLog(logger));

  app.get('/openapi.json', (_req, res) => void res.type('application/json').send(spec.json));
  app.get('/openapi.yaml', (_req, res) => void res.type('application/yaml').send(spec.yaml));
  app.get('/docs', (_req, res) => void res.type('text/html').send(spec.docsHtml));

  // v1 bodies must be JSON whatever their declared type; v2 bodies go to the target as they came.
  app.use('/v1', express.json({ type: () => true, limit: maxRequestBodyBytes, strict: true }));
  app.use('/v2', express.raw({ type: () => true, limit: maxRequestBodyBytes }));
  app.use(router.dispatch);
  app.use(errorMiddleware(logger, maxRequestBodyBytes));
  return app;
}
