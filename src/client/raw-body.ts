import type { RawBody } from './client-paths.js';

function isRawBody(body: unknown): body is RawBody {
  return (
    typeof body === 'string' ||
    body instanceof Uint8Array ||
    body instanceof ArrayBuffer ||
    body instanceof Blob ||
    body instanceof URLSearchParams
  );
}

/**
 * openapi-fetch JSON-encodes every body by default, which would send a v2 body to the target
 * as a quoted JSON string. v2 bodies are raw (string or bytes), v1 bodies are objects, so the
 * body's own type tells which encoding the operation wants.
 */
export function serializeBody(body: unknown): RawBody {
  return isRawBody(body) ? body : JSON.stringify(body);
}
