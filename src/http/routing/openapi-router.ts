import express, { type Request as ExpressRequest, type RequestHandler, type Response as ExpressResponse } from 'express';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import type { OpenAPIV3 } from 'openapi-types';
import { MethodNotAllowedError, UnprocessableEntityError } from '../errors/api-error.js';
import type { ParamLocator } from '../errors/to-api-error.js';
import '../answer-locals.js';
import { withFormats } from './ajv-formats.js';
import { normalizeBody, normalizeQuery, paramShapes, type ParamShapes } from './param-normalizer.js';
import { validationIssues } from './validation-issues.js';

/** What the router calls: any operation's handler, given the request as its document validated it. */
type AnyHandler = (v: { operation: string; query: unknown; path: unknown; body: unknown }, req: ExpressRequest, res: ExpressResponse) => Promise<void>;
/** Handlers by operationId, of either document (HandlersOf in operations.ts types each one). */
type HandlerMap = Readonly<Record<string, (v: never, req: ExpressRequest, res: ExpressResponse) => Promise<void>>>;

/** How request bodies are read: JSON ones (v1) for validation, any other (v2) raw, for the target. */
export interface BodyParsers {
  json: RequestHandler;
  raw: RequestHandler;
  /** Runs before any body byte is read (the caller's key is checked there); none: the body is read at once. */
  beforeBody?: (shapes: ParamShapes) => RequestHandler;
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
    private readonly handlers: HandlerMap,
  ) {
    // Defaults come from the document, filled in by the validator: nothing copies them by hand.
    // `quick`: the document is not validated again (`npm run spec` lints it when it is built) and
    // no response validator is compiled (answers are not validated here; the tests check them
    // against the document). Compiling everything made a start take 1.5 to 3 s longer. Each
    // operation's request validators are compiled on its first request (operation()).
    this.api = new OpenAPIBackend({
      definition: structuredClone(definition),
      strict: true,
      quick: true,
      ajvOpts: { allErrors: true, useDefaults: true },
      customizeAjv: withFormats,
    });
  }

  /**
   * Compiles the document's schemas and builds the routes. An operation that declares a request
   * body reads it with the parser for its media type; the others (every GET) read none.
   */
  async routes(parsers: BodyParsers): Promise<express.Router> {
    await this.api.init();
    this.checkHandlers();
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
        const reader = content?.['application/json'] ? parsers.json : parsers.raw;
        const gate = parsers.beforeBody?.(paramShapes(op as OpenAPIV3.OperationObject));
        const parser = !content ? [] : gate ? [gate, reader] : [reader];
        route[op.method.toLowerCase() as 'get'](...parser, this.operation(op));
      }
      route.all(refuse);
    }
    return router;
  }

  /**
   * An operation's validation for a caller that is not an HTTP request of it (the dashboard's
   * forms, which make the admin API's bodies): the same compiled schemas, so no rule lives in two
   * places. Throws the 422 the operation would answer; returns the body coerced and defaulted.
   * Only after routes().
   */
  validate(operationId: string, request: { path?: Record<string, string>; body?: unknown }): unknown {
    const parameters: Record<string, unknown> = { path: { ...request.path }, query: {}, header: { 'content-type': 'application/json' }, cookie: {} };
    if (request.body !== undefined) parameters.requestBody = structuredClone(request.body);
    const validators: Validate[] = this.api.validator.getRequestValidatorsForOperation(operationId);
    const errors = validators.flatMap((validate) => (validate(parameters) ? [] : (validate.errors ?? [])));
    if (errors.length > 0) throw new UnprocessableEntityError(validationIssues(errors));
    return parameters.requestBody;
  }

  /**
   * Every operation of the document has a handler and every handler an operation. The types say
   * so at compile time (OperationHandlers); this says so to a map built some other way.
   */
  private checkHandlers(): void {
    const documented = new Set(this.api.getOperations().map((op) => op.operationId));
    const handled = new Set(Object.keys(this.handlers));
    const missing = [...documented].filter((id) => id && !handled.has(id));
    const stray = [...handled].filter((id) => !documented.has(id));
    if (missing.length > 0 || stray.length > 0) {
      throw new Error(`handlers do not match the document: ${[...missing.map((id) => `no handler for ${id}`), ...stray.map((id) => `no operation ${id}`)].join('; ')}`);
    }
  }

  private operation(op: Operation): (req: ExpressRequest, res: ExpressResponse) => Promise<void> {
    const operationId = op.operationId as string;
    const handler = this.handlers[operationId] as unknown as AnyHandler;
    const shapes = paramShapes(op as OpenAPIV3.OperationObject);
    const locate = locator(shapes);
    // Compiled when the operation is first called: compiling the request validators of both
    // documents' operations took 0.6 of a 3 s start, and most servers serve a few of them. The
    // first call of an operation pays its own (tens of milliseconds).
    let validators: Validate[] | undefined;
    return async (req, res) => {
      validators ??= this.api.validator.getRequestValidatorsForOperation(operationId);
      res.locals.locate = locate;
      const query = normalizeQuery(req.query as Record<string, unknown>, shapes);
      // Only JSON bodies are validated; raw bodies (v2) are forwarded to the target untouched.
      const body = Buffer.isBuffer(req.body) || req.body === undefined ? undefined : normalizeBody(req.body, shapes);
      // A copy: the validator coerces in place (`{id}` becomes a number).
      const path = { ...req.params };
      const parameters: Record<string, unknown> = { path, query, header: req.headers, cookie: {} };
      if (body !== undefined) parameters.requestBody = body;
      const errors = validators.flatMap((validate) => (validate(parameters) ? [] : (validate.errors ?? [])));
      if (errors.length > 0) throw new UnprocessableEntityError(validationIssues(errors));
      // Validated against the operation's own schemas, coerced and defaulted: its declared shape.
      await handler({ operation: operationId, query, path, body: parameters.requestBody }, req, res);
    };
  }
}

/** Where each parameter of an operation stands, as its document declares it (a JSON body field, or the query). */
function locator(shapes: ParamShapes): ParamLocator {
  return (param) => [shapes.body.has(param) ? 'body' : shapes.header.has(param) && !shapes.query.has(param) ? 'header' : 'query', param];
}
