/**
 * The caller hung up before its answer was ready: the work is abandoned, nothing is charged, and
 * the ledger records the request as the client's cancellation (status 499, as nginx names a
 * client that closed the request). There is nobody left to answer.
 */
export class ClientCancelledError extends Error {
  readonly outcome = 'cancelled';

  constructor() {
    super('the client closed the connection before the answer was ready');
    this.name = 'ClientCancelledError';
  }
}
