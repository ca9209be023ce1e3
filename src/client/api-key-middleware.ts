import type { Middleware } from 'openapi-fetch';

const KEY = 'x-api-key';

function given(values: Record<string, unknown> | undefined): boolean {
  return values?.[KEY] !== undefined && values[KEY] !== '';
}

/**
 * Sends the client's key on every call unless the call names its own. v1 takes it in the
 * `x-api-key` header, which keeps it out of URLs (and the server prefers it to a query or body
 * key); v2 only reads the query parameter, so there it is appended to the URL.
 */
export function apiKeyMiddleware(apiKey: string): Middleware {
  return {
    onRequest({ request, schemaPath, params }) {
      if (given(params.query)) return undefined;
      if (schemaPath.startsWith('/v1/')) {
        if (!given(params.header) && !request.headers.has(KEY)) request.headers.set(KEY, apiKey);
        return request;
      }
      const separator = request.url.includes('?') ? '&' : '?';
      // A new Request: a Request's URL is read-only. Appending keeps the rest of the query exactly
      // as openapi-fetch encoded it (re-serialising through URLSearchParams would re-encode it).
      return new Request(`${request.url}${separator}${KEY}=${encodeURIComponent(apiKey)}`, request);
    },
  };
}
