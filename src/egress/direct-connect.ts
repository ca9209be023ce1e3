import net from 'node:net';
import { EgressError } from './fetch-errors.js';
import { egressFailure, fromNodeError } from './egress-failures.js';
import type { CheckedAddress } from './target-policy/target-policy.js';

/**
 * A TCP connection to the first of the checked addresses that accepts one, within `timeoutMs`
 * (`timedOut` makes the error for that). Only ever given addresses TargetPolicy handed out.
 */
export async function connectDirect(addresses: CheckedAddress[], port: number, timeoutMs: () => number, timedOut: () => Error): Promise<net.Socket> {
  let last: EgressError | undefined;
  for (const { address, family } of addresses) {
    if (timeoutMs() <= 0) throw timedOut();
    try {
      return await connectOne(address, family, port, timeoutMs(), timedOut);
    } catch (err) {
      if (!(err instanceof EgressError)) throw err;
      last = err;
    }
  }
  throw last ?? egressFailure('unreachable');
}

function connectOne(address: string, family: 4 | 6, port: number, timeoutMs: number, timedOut: () => Error): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, family, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(timedOut());
    }, timeoutMs);
    const onError = (err: Error) => {
      clearTimeout(timer);
      reject(fromNodeError(err) ?? egressFailure('unreachable', err));
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
  });
}
