import type { Request, Response } from 'express';
import type { operations } from '../generated/openapi-types.js';

/** Every operation of the OpenAPI document, by operationId. */
export type OperationId = keyof operations;

/**
 * The parameters the document gives a default. Validation fills them in from the document
 * (ajv's useDefaults), so a handler always finds them; a test holds this list to the document.
 */
export const DEFAULTED_PARAMETERS = [
  'browser', 'return_page_source', 'return_text', 'proxy_type', 'timeout',
  'screenshot', 'screenshot_format', 'screenshot_full_page', 'window_width', 'window_height', 'pdf_format', 'landscape', 'print_background', 'only_main_content',
] as const;
type Defaulted = (typeof DEFAULTED_PARAMETERS)[number];

/** `T` with the document's defaulted parameters present. */
type WithDefaults<T> = T & { [K in Extract<keyof T, Defaulted>]-?: Exclude<T[K], undefined> };

type QueryOf<K extends OperationId> = operations[K]['parameters'] extends { query?: infer Q } ? (undefined extends Q ? Partial<NonNullable<Q>> : Q) : Record<string, never>;
type JsonBodyOf<K extends OperationId> = operations[K] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : undefined;

/** A request to operation K once the document has validated it, coerced its values and filled in its defaults. */
export type Validated<K extends OperationId> = K extends OperationId ? { operation: K; query: WithDefaults<QueryOf<K>>; body: WithDefaults<JsonBodyOf<K>> } : never;

/** Answers one operation (or several that share a shape, K a union); raw bodies (v2) stay on `req.body`. */
export type OperationHandler<K extends OperationId> = (v: Validated<K>, req: Request, res: Response) => Promise<void>;

/** One handler per operation of the document: the compiler refuses a missing one and a stray one. */
export type OperationHandlers = { [K in OperationId]: OperationHandler<K> };
