import type { Middleware } from 'openapi-fetch';

/** The operations whose success body is the target's content itself (`*∕*`, a string in the types). */
const RAW_ANSWER_PATHS = new Set(['/v2/general']);

/**
 * The generated types promise `data: string` for a v2 general answer, but openapi-fetch's
 * default `parseAs: 'json'` would try to parse the page as JSON and throw. For that default only,
 * the answer is handed over as a JSON string of its text, so `data` is the page as typed; an
 * explicit `parseAs` ('text', 'arrayBuffer', 'blob', 'stream') reads the untouched response.
 */
export const rawAnswerMiddleware: Middleware = {
  async onResponse({ response, schemaPath, options }) {
    if (!RAW_ANSWER_PATHS.has(schemaPath) || !response.ok || options.parseAs !== 'json') return undefined;
    const headers = new Headers(response.headers);
    // The length is of the original bytes, not of the JSON text that replaces them.
    headers.delete('content-length');
    const text = await response.text();
    return new Response(JSON.stringify(text), { status: response.status, statusText: response.statusText, headers });
  },
};
