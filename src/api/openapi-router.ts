import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { OpenAPIBackend, type Context, type Document, type Request as OpenApiRequest } from 'openapi-backend';
import type { OpenAPIV3 } from 'openapi-types';
import { MethodNotAllowedError, NotFoundError, UnprocessableEntityError } from '../errors/api-error.js';
import { withFormats } from './ajv-formats.js';
import { normalizeBody, normalizeQuery, paramShapes, type ParamShapes } from './param-normalizer.js';
import { validationIssues } from './validation-issues.js';

export type OperationHandler = (c: Context, req: ExpressRequest, res: ExpressResponse) => Promise<void>;

const METHODS = ['get', 'post', 'put', 'delete', 'patch', 'options', 'head', 'trace'] as const;

/**
 * Routes and validates every request against the OpenAPI document, then calls the handler
 * registered under the operation's operationId. Errors are thrown as ApiErrors for the one
 * error middleware to answer.
 */
export class OpenApiRouter {
  private readonly api: OpenAPIBackend;
  private readonly shapes = new Map<string, ParamShapes>();
  private readonly allowed = new Map<string, string[]>();

  constructor(definition: Document, handlers: Record<string, OperationHandler>) {
    for (const [path, item] of Object.entries((definition as OpenAPIV3.Document).paths)) {
      this.allowed.set(path, METHODS.filter((m) => item?.[m] !== undefined).map((m) => m.toUpperCase()));
    }
    this.api = new OpenAPIBackend({
      definition: structuredClone(definition),
      strict: true,
      quick: false,
      ajvOpts: { allErrors: true },
      customizeAjv: withFormats,
      handlers: {
        ...handlers,
        notFound: async () => {
          throw new NotFoundError('Not Found');
        },
        methodNotAllowed: async (c: Context) => {
          throw new MethodNotAllowedError(this.allowed.get(c.request.path) ?? []);
        },
        validationFail: async (c: Context) => {
          throw new UnprocessableEntityError(validationIssues(c.validation.errors ?? []));
        },
      },
      // Who the key belongs to and whether it has credits is the scrape service's question (it
      // needs the database); here every declared scheme is accepted so validation runs first.
      securityHandlers: { ApiKeyQuery: () => true, ApiKeyHeader: () => true },
    });
  }

  async init(): Promise<void> {
    await this.api.init();
    for (const op of this.api.getOperations()) {
      if (op.operationId) this.shapes.set(op.operationId, paramShapes(op as OpenAPIV3.OperationObject));
    }
  }

  readonly dispatch = async (req: ExpressRequest, res: ExpressResponse): Promise<void> => {
    const request: OpenApiRequest = {
      method: req.method,
      path: req.path,
      headers: req.headers as OpenApiRequest['headers'],
      query: req.query as OpenApiRequest['query'],
      body: undefined,
    };
    const operation = this.api.matchOperation(request);
    const shapes = operation?.operationId ? this.shapes.get(operation.operationId) : undefined;
    if (shapes) {
      request.query = normalizeQuery(req.query as Record<string, unknown>, shapes) as OpenApiRequest['query'];
      // Only JSON bodies are validated; raw bodies (v2) are forwarded to the target untouched.
      if (!Buffer.isBuffer(req.body)) request.body = normalizeBody(req.body, shapes);
    }
    await this.api.handleRequest(request, req, res);
  };
}
