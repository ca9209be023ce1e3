import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { NotFoundError, UnauthorizedError } from '../errors/api-error.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The gate of every /admin path. Without ADMIN_TOKEN the admin API does not exist (404, as any
 * unknown path). Otherwise `Authorization: Bearer <token>` is required, compared in constant time
 * (as digests, so not even the token's length shows); a scraping key is never it.
 */
export function adminAuth(token: string | undefined, onFailure: () => void): RequestHandler {
  const expected = token === undefined ? undefined : digest(token);
  return (req, _res, next) => {
    if (!expected) throw new NotFoundError('Not Found');
    const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1]), expected)) {
      onFailure();
      throw new UnauthorizedError('A valid admin token is required (Authorization: Bearer <ADMIN_TOKEN>).');
    }
    next();
  };
}
