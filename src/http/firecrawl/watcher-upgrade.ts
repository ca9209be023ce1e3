import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** The WebSocket handshake's constant (RFC 6455 §1.3). */
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** A job's watcher, as Firecrawl's JS SDK opens it. */
const WATCHED = /^\/v2\/(?:batch\/scrape|crawl)\/[^/?#]+(?:\?.*)?$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
/** A close frame, code 1000 (normal closure), unmasked as a server sends it. */
const NORMAL_CLOSE = Buffer.from([0x88, 0x02, 0x03, 0xe8]);
const LINGER_MS = 1_000;

/**
 * Firecrawl's JS SDK watches a job over a WebSocket and, when the socket closes, polls its status
 * instead. This server streams nothing: the upgrade is accepted and closed at once with 1000, so
 * the SDK moves to polling without an error. Nothing is read or sent but the handshake and the
 * close (no key is judged: the socket carries no data). Returns false for any other upgrade,
 * which the caller refuses.
 */
export function closeWatcherUpgrade(req: IncomingMessage, socket: Duplex): boolean {
  if (req.method !== 'GET' || !WATCHED.test(req.url ?? '') || (req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return false;
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || Buffer.from(key, 'base64').length !== 16) {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    return true;
  }
  const accept = createHash('sha1').update(key + GUID).digest('base64');
  // The SDK offers its key as the subprotocol and wants one chosen: its own, echoed to it alone.
  const offered = req.headers['sec-websocket-protocol']?.split(',')[0]?.trim();
  const protocol = offered && TOKEN.test(offered) ? `Sec-WebSocket-Protocol: ${offered}\r\n` : '';
  socket.on('error', () => socket.destroy());
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${protocol}\r\n`);
  socket.end(NORMAL_CLOSE);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
  return true;
}
