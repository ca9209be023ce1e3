import { inQuery, toApiError } from '../http/errors/to-api-error.js';

/**
 * What the caller did wrong, as the admin API would answer it (a 404, 409 or 422 and its words),
 * for a form to show on the page it came from; undefined for anything else (it goes to the
 * router's error page, and a 500 tells nothing).
 */
export function formError(err: unknown): { status: number; message: string } | undefined {
  const apiError = toApiError(err, inQuery, 0);
  if (!apiError || apiError.status >= 500) return undefined;
  return { status: apiError.status, message: apiError.message.replace(/\b(body|query)\./g, '') };
}
