import type { RequestHandler } from 'express';
import { announcesBody } from './body-reader.js';
import { clientAddressOf } from '../client-address.js';
import { closeWithoutReading } from './lingering-close.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import { apiKeyOf } from '../decode/api-key-of.js';
import type { ParamShapes } from '../routing/param-normalizer.js';

/** Whether a key opens the API from where its caller is: rejects (403) when not. */
export type Authenticate = (apiKey: string, clientAddress: string) => Promise<unknown>;

/**
 * Nothing of a body is read before its caller is known. An operation that takes a body checks
 * the key of the header or the query first: a missing key (422) or a wrong one (403) is answered
 * before a byte of the body is buffered. Only v1's JSON body may carry the key itself: without one
 * outside it, the body is read, within its own small limit, and the key judged as before.
 */
export function keyFirst(shapes: ParamShapes, authenticate: Authenticate): RequestHandler {
  const keyInBody = shapes.body.has('x-api-key');
  return async (req, res, next) => {
    if (!announcesBody(req)) return next();
    const header = req.headers['x-api-key'];
    const param = req.query['x-api-key'];
    const fromOutside = (header || undefined) ?? (typeof param === 'string' && param ? param : undefined);
    if (fromOutside === undefined && keyInBody && !Array.isArray(param)) return next();
    try {
      if (Array.isArray(param) || Array.isArray(header)) throw new InvalidValueError('x-api-key', 'send the key once', 'value_error.ambiguous');
      await authenticate(apiKeyOf(header, typeof param === 'string' ? param : undefined), clientAddressOf(req));
    } catch (err) {
      // Refused before the body: its bytes are never read.
      closeWithoutReading(req, res);
      throw err;
    }
    next();
  };
}
