import type { Middleware } from 'openapi-fetch';

/** Sends `Authorization: Bearer <token>` on every call: the admin token, or a Firecrawl-style API key. */
export function bearerMiddleware(token: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  };
}
