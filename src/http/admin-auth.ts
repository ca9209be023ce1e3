import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { NotFoundError, TooManyRequestsError, UnauthorizedError } from '../errors/api-error.js';
import { clientAddressOf } from './client-address.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** How many wrong secrets a client may try (accounts/sign-in-limit.ts, shared with the dashboard's sign-in). */
export interface GuessLimit {
  /** The right token: seconds the client must still wait, or undefined. */
  blocked(address: string): Promise<number | undefined>;
  /** A wrong token, counted: seconds the client must now wait, or undefined (a plain 401). */
  failed(address: string): Promise<number | undefined>;
}

/**
 * The gate of every /admin path. Without ADMIN_TOKEN the admin API does not exist (404, as any
 * unknown path). Otherwise `Authorization: Bearer <token>` is required, compared in constant time
 * (as digests, so not even the token's length shows); a scraping key is never it. Wrong tokens
 * count as failed sign-ins of their client: past the limit every request from it gets 429, the
 * right token included, so a weak token cannot be guessed here any faster than on the dashboard.
 * The right token is never counted, however many requests carry it at once.
 */
export function adminAuth(token: string | undefined, limit: GuessLimit, onFailure: () => void): RequestHandler {
  const expected = token === undefined ? undefined : digest(token);
  return async (req, _res, next) => {
    if (!expected) throw new NotFoundError('Not Found');
    const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    const right = match !== null && timingSafeEqual(digest(match[1]), expected);
    const address = clientAddressOf(req);
    const waitSeconds = right ? await limit.blocked(address) : await limit.failed(address);
    if (waitSeconds !== undefined) {
      throw new TooManyRequestsError(`Too many requests with a wrong admin token from this address. Try again in ${waitSeconds} seconds.`, waitSeconds);
    }
    if (!right) {
      onFailure();
      throw new UnauthorizedError('A valid admin token is required (Authorization: Bearer <ADMIN_TOKEN>).');
    }
    next();
  };
}
