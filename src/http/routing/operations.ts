import type { Request, Response } from 'express';
import type { operations as AdminOperations } from '../../generated/admin-types.js';
import type { operations } from '../../generated/openapi-types.js';

/** Every operation of the public OpenAPI document, by operationId. */
export type OperationId = keyof operations;
/** Every operation of the admin document, by operationId. */
export type AdminOperationId = keyof AdminOperations;

/**
 * The parameters each document gives a default. Validation fills them in from the document
 * (ajv's useDefaults), so a handler always finds them; a test holds these lists to the documents.
 */
export const DEFAULTED_PARAMETERS = [
  'browser', 'return_page_source', 'return_text', 'proxy_type', 'timeout',
  'screenshot', 'screenshot_format', 'screenshot_full_page', 'window_width', 'window_height', 'pdf_format', 'landscape', 'print_background', 'only_main_content',
] as const;
export const ADMIN_DEFAULTED_PARAMETERS = ['limit', 'grace_seconds'] as const;
type Defaulted = (typeof DEFAULTED_PARAMETERS)[number] | (typeof ADMIN_DEFAULTED_PARAMETERS)[number];

/** `T` with the document's defaulted parameters present. */
type WithDefaults<T> = T & { [K in Extract<keyof T, Defaulted>]-?: Exclude<T[K], undefined> };

type QueryOf<Op> = Op extends { parameters: { query?: infer Q } } ? (undefined extends Q ? Partial<NonNullable<Q>> : Q) : Record<string, never>;
type PathOf<Op> = Op extends { parameters: { path: infer P } } ? P : Record<string, never>;
type JsonBodyOf<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } } ? B : undefined;

/** A request to operation K of `Ops` once its document has validated it, coerced its values and filled in its defaults. */
export type ValidatedOf<Ops, K extends keyof Ops> = K extends keyof Ops
  ? { operation: K; query: WithDefaults<QueryOf<Ops[K]>>; path: PathOf<Ops[K]>; body: WithDefaults<JsonBodyOf<Ops[K]>> }
  : never;

/** A request to public operation K (see ValidatedOf). */
export type Validated<K extends OperationId> = ValidatedOf<operations, K>;

/** Answers one operation (or several that share a shape, K a union); raw bodies (v2) stay on `req.body`. */
export type OperationHandler<K extends OperationId> = (v: Validated<K>, req: Request, res: Response) => Promise<void>;

/** One handler per operation of `Ops`: the compiler refuses a missing one and a stray one. */
export type HandlersOf<Ops> = { [K in keyof Ops]: (v: ValidatedOf<Ops, K>, req: Request, res: Response) => Promise<void> };

/** One handler per operation of the public document. */
export type OperationHandlers = HandlersOf<operations>;
/** One handler per operation of the admin document. */
export type AdminOperationHandlers = HandlersOf<AdminOperations>;
export type AdminHandler<K extends AdminOperationId> = AdminOperationHandlers[K];
export type AdminValidated<K extends AdminOperationId> = ValidatedOf<AdminOperations, K>;
