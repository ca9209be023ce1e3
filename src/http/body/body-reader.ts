import type { Request, RequestHandler } from 'express';
import { BadRequestError, TooManyRequestsError, UnprocessableEntityError } from '../errors/api-error.js';
import { ClientCancelledError } from '../../time/client-cancelled-error.js';
import type { BodyBudget } from './body-budget.js';
import { closeWithoutReading } from './lingering-close.js';

export interface BodyReaderOptions {
  /** The most bytes one body may have. */
  limit: number;
  /** The bytes every request's body may hold at once, shared. */
  budget: BodyBudget;
  /** A body that sends nothing for this long is cut: a stalled upload costs its sender, not the service. */
  idleMs: number;
  /** `json`: parsed (objects and arrays only, UTF-8, no Content-Encoding); `raw`: the bytes as sent. */
  as: 'json' | 'raw';
}

/** Whether the request announces a body: a non-zero Content-Length, or any Transfer-Encoding. */
export function announcesBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

function tooLarge(limit: number): UnprocessableEntityError {
  return new UnprocessableEntityError([{ loc: ['body'], msg: `the request body exceeds ${limit} bytes`, type: 'value_error.body.too_large' }]);
}


/**
 * Reads a request body within its limit and the shared budget, in place of body-parser: the
 * declared length is judged before a byte is read, a chunked body as it arrives, and what a body
 * holds of the budget is given back when its answer is done.
 */
export function bodyReader(options: BodyReaderOptions): RequestHandler {
  const { limit, budget, idleMs, as } = options;
  return (req, res, next) => {
    /** A refusal while the body is still on its way: the rest of it is never read. */
    const refuse = (err: Error) => {
      closeWithoutReading(req, res);
      return err;
    };
    if (!announcesBody(req)) {
      req.body = undefined;
      return next();
    }
    if (as === 'json' && (req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity') {
      return next(refuse(new BadRequestError('The request body could not be read: send JSON without a Content-Encoding.')));
    }
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    if (declared !== undefined && !(Number.isSafeInteger(declared) && declared >= 0)) return next(refuse(new BadRequestError('The request body could not be read.')));
    if (declared !== undefined && declared > limit) return next(refuse(tooLarge(limit)));
    let held = 0;
    const take = (bytes: number) => {
      if (!budget.tryTake(bytes)) return false;
      held += bytes;
      return true;
    };
    res.once('close', () => budget.give(held));
    const busy = () => refuse(new TooManyRequestsError('The service is receiving too many request bodies at once; retry shortly.', 1));
    if (declared !== undefined && !take(declared)) return next(busy());

    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let idle: NodeJS.Timeout | undefined;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(idle);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted);
      if (err) {
        req.pause();
        return next(err);
      }
      const body = Buffer.concat(chunks, size);
      if (as === 'raw') {
        req.body = body;
        return next();
      }
      try {
        req.body = parseJson(body);
      } catch (parseError) {
        return next(parseError as Error);
      }
      next();
    };
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(refuse(new BadRequestError(`The request body stopped arriving (nothing for ${Math.round(idleMs / 1000)} s).`))), idleMs);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return finish(refuse(tooLarge(limit)));
      if (declared === undefined && !take(chunk.length)) return finish(busy());
      chunks.push(chunk);
      armIdle();
    };
    const onEnd = () => finish();
    const onError = () => finish(new ClientCancelledError());
    const onAborted = () => finish(new ClientCancelledError());
    req.on('data', onData).once('end', onEnd).once('error', onError).once('aborted', onAborted);
    armIdle();
  };
}

/** body-parser's strict JSON: an object or an array, UTF-8 (a byte-order mark is tolerated). */
function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw new BadRequestError('The request body must be proper JSON.');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadRequestError('The request body must be proper JSON.');
  }
}
