import type { Request, Response } from 'express';

/** How long a refused upload's connection stays half-open after its answer, for the client to read it. */
const LINGER_MS = 1_000;

/**
 * For an answer sent before its request's body was read (a refusal): the connection closes after
 * the answer, without reading the rest of the upload, yet not at once. Closing a socket with
 * unread bytes sends a reset, which can reach a client still writing before it has read the
 * answer, so it would never learn why it was refused. So the service stops reading, sends its
 * end of the connection, and drops the socket a second later (nginx's lingering close). What the
 * client still sends meanwhile waits in the kernel's window, not in this process.
 */
export function closeWithoutReading(req: Request, res: Response): void {
  if (res.headersSent) return;
  res.setHeader('Connection', 'close');
  const socket = req.socket;
  // Node ends a `Connection: close` exchange with destroySoon(): the end, then the destruction as
  // soon as the end is flushed. Here the destruction waits.
  socket.destroySoon = function lingeringDestroySoon(this: typeof socket) {
    this.pause();
    if (this.writable) this.end();
    setTimeout(() => this.destroy(), LINGER_MS).unref();
  };
}
