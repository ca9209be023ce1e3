import type { components, paths } from '../generated/openapi-types.js';

/**
 * The generated `paths`, reshaped for a client that already holds its API key (it sends it in
 * the header on every call): `x-api-key` is always optional here, and a query left with no
 * required parameter (`/v2/usage`) may be omitted altogether.
 */

type ApiKeyName = 'x-api-key';
type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

/** Flattens an intersection so an editor shows the resulting fields, not the type algebra. */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

type KeyOptional<Query> = Simplify<Omit<Query, ApiKeyName> & { [K in ApiKeyName]?: string }>;

type FilledParameters<Params> = Params extends { query: infer Query }
  ? [RequiredKeys<Omit<Query, ApiKeyName>>] extends [never]
    ? Simplify<Omit<Params, 'query'> & { query?: KeyOptional<Query> }>
    : Simplify<Omit<Params, 'query'> & { query: KeyOptional<Query> }>
  : Params;

/**
 * What a v2 body may be. The document says `type: string, format: binary` (the bytes go to the
 * target untouched), which openapi-typescript renders as `string`; bytes are just as valid.
 */
export type RawBody = string | Uint8Array | ArrayBuffer | Blob | URLSearchParams;

type V1Request = components['schemas']['V1Request'];
type Defaulted = 'browser' | 'return_text';

/**
 * The v1 JSON body. openapi-typescript marks properties that have a default as required (true
 * of an answer, not of a request: the server fills the default in). The key is left out because
 * the client sends its own in the `x-api-key` header, which the server prefers to a body key;
 * to use another key for one call, pass `params: { header: { 'x-api-key': … } }`.
 */
export type V1RequestBody = Simplify<Omit<V1Request, Defaulted | ApiKeyName> & Partial<Pick<V1Request, Defaulted>>>;

type FilledBody<Body> = Body extends { content: { '*/*': string } }
  ? { content: { '*/*': RawBody } }
  : Body extends { content: { 'application/json': V1Request } }
    ? { content: { 'application/json': V1RequestBody } }
    : Body;

type FilledOperation<Operation> = {
  [K in keyof Operation]: K extends 'parameters'
    ? FilledParameters<Operation[K]>
    : K extends 'requestBody'
      ? FilledBody<Operation[K]>
      : Operation[K];
};

/** Every path and method of the document, with the API key filled in by the client. */
export type ScrapegatePaths = {
  [Path in keyof paths]: {
    [Method in keyof paths[Path]]: Method extends HttpMethod ? FilledOperation<paths[Path][Method]> : paths[Path][Method];
  };
};
