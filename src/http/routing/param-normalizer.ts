import type { OpenAPIV3 } from 'openapi-types';

const TRUE = new Set(['true', 'True', 'TRUE', '1']);
const FALSE = new Set(['false', 'False', 'FALSE', '0']);

/** Python's spelling (`True`) and `1`/`0` mean the same boolean; anything else is left to fail validation. */
function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  if (TRUE.has(String(value))) return true;
  if (FALSE.has(String(value))) return false;
  return undefined;
}

export interface ParamShapes {
  /** Every declared query parameter: the others are dropped, as established clients send extras. */
  query: Set<string>;
  /** Declared header parameters. */
  header: Set<string>;
  /** The fields of a JSON request body. */
  body: Set<string>;
  booleans: Set<string>;
  arrays: Set<string>;
}

/** Which query parameters and body fields of an operation are booleans or arrays. */
export function paramShapes(operation: OpenAPIV3.OperationObject): ParamShapes {
  const query = new Set<string>();
  const header = new Set<string>();
  const booleans = new Set<string>();
  const arrays = new Set<string>();
  for (const p of (operation.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
    if (p.in === 'header') header.add(p.name.toLowerCase());
    if (p.in !== 'query') continue;
    query.add(p.name);
    const type = (p.schema as OpenAPIV3.SchemaObject | undefined)?.type;
    if (type === 'boolean') booleans.add(p.name);
    if (type === 'array') arrays.add(p.name);
  }
  const body = (operation.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content?.['application/json']?.schema as
    | OpenAPIV3.SchemaObject
    | undefined;
  const fields = new Set(Object.keys(body?.properties ?? {}));
  for (const [name, schema] of Object.entries(body?.properties ?? {})) {
    if ((schema as OpenAPIV3.SchemaObject).type === 'boolean') booleans.add(name);
  }
  return { query, header, body: fields, booleans, arrays };
}

/**
 * Query strings: undeclared parameters dropped, booleans spelled the one way ajv coerces, a lone
 * value of an array parameter wrapped.
 */
export function normalizeQuery(query: Record<string, unknown>, shapes: ParamShapes): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) if (shapes.query.has(name)) out[name] = value;
  for (const name of shapes.booleans) {
    const b = asBoolean(out[name]);
    if (b !== undefined) out[name] = String(b);
  }
  for (const name of shapes.arrays) {
    if (typeof out[name] === 'string') out[name] = [out[name]];
  }
  return out;
}

/** JSON bodies: a boolean field may also arrive as "true", "True", 1 and so on. */
export function normalizeBody(body: unknown, shapes: ParamShapes): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const name of shapes.booleans) {
    const b = asBoolean(out[name]);
    if (b !== undefined) out[name] = b;
  }
  return out;
}
