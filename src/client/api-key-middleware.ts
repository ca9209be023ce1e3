import type { Middleware } from 'openapi-fetch';

const KEY = 'x-api-key';

function given(values: Record<string, unknown> | undefined): boolean {
  return values?.[KEY] !== undefined && values[KEY] !== '';
}

/**
 * Sends the client's key on every call unless the call names its own, in the `x-api-key`
 * header, which every operation takes: that keeps the key out of URLs (and so out of proxy and
 * access logs along the way). A call that names a key as a query parameter sends only that one,
 * since two different keys are refused as ambiguous.
 */
export function apiKeyMiddleware(apiKey: string): Middleware {
  return {
    onRequest({ request, params }) {
      if (given(params.query) || given(params.header) || request.headers.has(KEY)) return undefined;
      request.headers.set(KEY, apiKey);
      return request;
    },
  };
}
