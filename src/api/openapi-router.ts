import express, { type Request as ExpressRequest, type RequestHandler, type Response as ExpressResponse } from 'express';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import type { OpenAPIV3 } from 'openapi-types';
import { MethodNotAllowedError, UnprocessableEntityError } from '../errors/api-error.js';
import { withFormats } from './ajv-formats.js';
import { normalizeBody, normalizeQuery, paramShapes } from './param-normalizer.js';
import { validationIssues } from './validation-issues.js';

/** A request's parameters once the OpenAPI document has validated (and coerced) them. */
export interface ValidatedRequest {
  query: Record<string, unknown>;
  /** The JSON body (v1); raw bodies (v2) are the target's and stay on `req.body`. */
  body: unknown;
}

export type OperationHandler = (v: ValidatedRequest, req: ExpressRequest, res: ExpressResponse) => Promise<void>;

/** How request bodies are read: JSON ones (v1) for validation, any other (v2) raw, for the target. */
export interface BodyParsers {
  json: RequestHandler;
  raw: RequestHandler;
}

type Validate = ReturnType<OpenAPIBackend['validator']['getRequestValidatorsForOperation']>[number];

const METHODS = ['get', 'post', 'put', 'delete', 'patch', 'options', 'head', 'trace'] as const;

/**
 * Every operation of the OpenAPI document as one express route that validates with the
 * document's compiled schemas and calls the handler registered under its operationId. express
 * routes once; openapi-backend compiles the schemas (its own request pipeline parses a request
 * three times and matches it twice, which the hot path cannot afford). Undocumented methods on
 * a documented path answer 405 (other paths fall through to the app); errors go to the one error
 * middleware.
 */
export class OpenApiRouter {
  private readonly api: OpenAPIBackend;

  constructor(
    definition: Document,
    private readonly handlers: Record<string, OperationHandler>,
  ) {
    this.api = new OpenAPIBackend({
      definition: structuredClone(definition),
      strict: true,
      quick: false,
      ajvOpts: { allErrors: true },
      customizeAjv: withFormats,
    });
  }

  /**
   * Compiles the document's schemas and builds the routes. An operation that declares a request
   * body reads it with the parser for its media type; the others (every GET) read none.
   */
  async routes(parsers: BodyParsers): Promise<express.Router> {
    await this.api.init();
    const router = express.Router({ caseSensitive: true, strict: true });
    const byPath = new Map<string, Operation[]>();
    for (const op of this.api.getOperations()) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
    for (const [path, operations] of byPath) {
      const route = router.route(path.replace(/\{([^}]+)\}/g, ':$1'));
      const declared = new Set(operations.map((op) => op.method.toLowerCase()));
      const allowed = METHODS.filter((m) => declared.has(m)).map((m) => m.toUpperCase());
      const refuse = () => {
        throw new MethodNotAllowedError(allowed);
      };
      // express answers HEAD with the GET route unless told otherwise; the document decides.
      if (!declared.has('head')) route.head(refuse);
      for (const op of operations) {
        const content = (op.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content;
        const parser = !content ? [] : content['application/json'] ? [parsers.json] : [parsers.raw];
        route[op.method.toLowerCase() as 'get'](...parser, this.operation(op));
      }
      route.all(refuse);
    }
    return router;
  }

  private operation(op: Operation): (req: ExpressRequest, res: ExpressResponse) => Promise<void> {
    const operationId = op.operationId!;
    const handler = this.handlers[operationId];
    if (!handler) throw new Error(`no handler for operation ${operationId}`);
    const shapes = paramShapes(op as OpenAPIV3.OperationObject);
    const validators: Validate[] = this.api.validator.getRequestValidatorsForOperation(operationId);
    return async (req, res) => {
      const query = normalizeQuery(req.query as Record<string, unknown>, shapes);
      // Only JSON bodies are validated; raw bodies (v2) are forwarded to the target untouched.
      const body = Buffer.isBuffer(req.body) || req.body === undefined ? undefined : normalizeBody(req.body, shapes);
      const parameters: Record<string, unknown> = { path: req.params, query, header: req.headers, cookie: {} };
      if (body !== undefined) parameters.requestBody = body;
      const errors = validators.flatMap((validate) => (validate(parameters) ? [] : (validate.errors ?? [])));
      if (errors.length > 0) throw new UnprocessableEntityError(validationIssues(errors));
      await handler({ query, body: parameters.requestBody }, req, res);
    };
  }
}
