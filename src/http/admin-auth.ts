import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { NotFoundError, TooManyRequestsError, UnauthorizedError } from './errors/api-error.js';
import { clientAddressOf } from './client-address.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** A client that may not try now: for how long, and whether for its own failures or every client's. */
export interface GuessRefusal {
  waitSeconds: number;
  scope: 'address' | 'global';
}

/** Why the gate refused a request: 401 (no token or a wrong one), or 429 by the limit's scope. */
export type AdminAuthRefusal = 'unauthorized' | GuessRefusal['scope'];

/** How many wrong secrets a client may try (accounts/sign-in-limit.ts, shared with the dashboard's sign-in). */
export interface GuessLimit {
  /** Before the secret is judged: how long the client must wait, or undefined: it may try. */
  admit(address: string): Promise<GuessRefusal | undefined>;
  /** A wrong token, counted: how long the client must now wait, or undefined (a plain 401). */
  failed(address: string): Promise<GuessRefusal | undefined>;
  /** The right token, from this client. */
  succeeded(address: string): Promise<void>;
}

const WRONG = 'A valid admin token is required (Authorization: Bearer <ADMIN_TOKEN>).';

/** The bearer credential a request carries, or undefined when it carries none. */
export function bearerOf(header: string | undefined): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
}

/**
 * The gate of every /admin path. Without ADMIN_TOKEN the admin API does not exist (404, as any
 * unknown path). Otherwise `Authorization: Bearer <token>` is required, compared in constant time
 * (as digests, so not even the token's length shows); a scraping key is never it.
 *
 * A request without a bearer credential is a 401 that counts nothing and asks the database
 * nothing: any web page can make a browser send those (an <img>, a CORS preflight), and they
 * must not lock the operator out. One with a credential is first admitted by the sign-in limit,
 * before the token is judged, so that a blocked client's 429 costs and says the same whatever it
 * sent; then a wrong token counts as a failed sign-in of its client, and the right one is never
 * counted, however many requests carry it at once.
 */
export function adminAuth(token: string | undefined, limit: GuessLimit, onRefused: (why: AdminAuthRefusal) => void): RequestHandler {
  const expected = token === undefined ? undefined : digest(token);
  return async (req, _res, next) => {
    if (!expected) throw new NotFoundError('Not Found');
    const sent = bearerOf(req.headers.authorization);
    if (sent === undefined) {
      onRefused('unauthorized');
      throw new UnauthorizedError(WRONG);
    }
    const address = clientAddressOf(req);
    const refused = await limit.admit(address);
    if (refused) {
      onRefused(refused.scope);
      throw tooMany(refused);
    }
    if (timingSafeEqual(digest(sent), expected)) {
      await limit.succeeded(address);
      return next();
    }
    const limited = await limit.failed(address);
    onRefused(limited?.scope ?? 'unauthorized');
    if (limited) throw tooMany(limited);
    throw new UnauthorizedError(WRONG);
  };
}

function tooMany(refusal: GuessRefusal): TooManyRequestsError {
  const why = refusal.scope === 'global' ? 'Too many requests with a wrong admin token from many addresses; the token is accepted only from addresses it was used from before.' : 'Too many requests with a wrong admin token from this address.';
  return new TooManyRequestsError(`${why} Try again in ${refusal.waitSeconds} seconds.`, refusal.waitSeconds);
}
