import type { Duplex } from 'node:stream';

/**
 * A request Node's parser refuses (CR or LF inside a header value, control characters, a broken
 * request line) never reaches express: it still gets the API's error shape.
 */
export function answerMalformedRequest(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({ detail: 'The request is not well-formed HTTP (a header may hold a CR, LF or control character).' });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
