import type { Request, RequestHandler, Response } from 'express';
import { hashApiKey } from '../../billing/billing.js';
import type { Caller } from '../../scrape/scrape-service.js';
import { closeWithoutReading } from '../body/lingering-close.js';
import { clientAddressOf } from '../client-address.js';
import { BadRequestError, UnauthorizedError } from '../errors/api-error.js';

declare global {
  namespace Express {
    interface Locals {
      /** A Firecrawl call's caller, once its key was judged (before its body was read). */
      firecrawlCaller?: Caller;
    }
  }
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const MAX_KEY_CHARS = 256;

/**
 * The key a Firecrawl call carries: `Authorization: Bearer <key>` (what Firecrawl's SDKs send) or
 * `x-api-key`. Both, and different, is ambiguous; neither is a 401, as Firecrawl answers it.
 */
export function firecrawlKeyOf(req: Request): string {
  const authorization = req.headers.authorization;
  const header = req.headers['x-api-key'];
  if (Array.isArray(header)) throw new BadRequestError('Send the x-api-key header once.');
  const bearer = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (authorization !== undefined && bearer === undefined && !header) throw new UnauthorizedError('Unauthorized: the Authorization header must be "Bearer <key>"');
  const apiKey = header || undefined;
  if (bearer && apiKey && bearer !== apiKey) throw new BadRequestError('The Authorization header and the x-api-key header name different keys: send the key once.');
  const key = bearer ?? apiKey;
  if (!key) throw new UnauthorizedError('Unauthorized: send your API key as "Authorization: Bearer <key>"');
  if (key.length > MAX_KEY_CHARS) throw new UnauthorizedError('Unauthorized: Invalid token');
  return key;
}

/** Who a Firecrawl call is for, by its key's hash and its client's address (as an IP restriction judges it). */
export function firecrawlCaller(req: Request): Caller {
  return { keyHash: hashApiKey(firecrawlKeyOf(req)), clientAddress: clientAddressOf(req) };
}

/**
 * Nothing of a body is read before its caller is known: the key is judged first (401, 402, 403
 * answered without reading the upload), and the caller is kept for the handler.
 */
export function callerFirst(authenticate: (caller: Caller) => Promise<unknown>): RequestHandler {
  return async (req, res, next) => {
    try {
      const caller = firecrawlCaller(req);
      await authenticate(caller);
      res.locals.firecrawlCaller = caller;
    } catch (err) {
      closeWithoutReading(req, res);
      throw err;
    }
    next();
  };
}

/** The caller callerFirst judged, or (an operation without a body) judged now. */
export async function authenticatedCaller(req: Request, res: Response, authenticate: (caller: Caller) => Promise<unknown>): Promise<Caller> {
  const known = res.locals.firecrawlCaller;
  if (known) return known;
  const caller = firecrawlCaller(req);
  await authenticate(caller);
  return caller;
}
