import { once } from 'node:events';
import net from 'node:net';

/** One crafted answer: the bytes a target sends back (then it closes, unless `keepOpen`). */
export interface HostileCase {
  name: string;
  answer: Buffer;
  keepOpen?: boolean;
}

const text = (s: string) => Buffer.from(s, 'latin1');
const pad3 = (n: number) => String(n).padStart(3, '0');
const OK_BODY = 'Content-Type: text/html\r\nContent-Length: 2\r\n\r\nok';

/**
 * What a hostile target can answer instead of HTTP (HOSTILE-INPUTS.md, "From the target"): every
 * status from 0 to 999, every byte from 0 to 255 in a reason phrase, a header name and a header
 * value, duplicated and conflicting framing headers, oversized and too many headers, truncated
 * chunks, lying lengths, HTTP/0.9 and HTTP/2 prefaces, and no answer at all.
 */
export function hostileCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  for (let status = 0; status <= 999; status++) cases.push({ name: `status ${status}`, answer: text(`HTTP/1.1 ${pad3(status)} X\r\n${OK_BODY}`) });
  for (let byte = 0; byte <= 255; byte++) {
    const b = String.fromCharCode(byte);
    cases.push({ name: `reason byte ${byte}`, answer: text(`HTTP/1.1 200 O${b}K\r\n${OK_BODY}`) });
    cases.push({ name: `header value byte ${byte}`, answer: text(`HTTP/1.1 200 OK\r\nX-Test: a${b}b\r\n${OK_BODY}`) });
    cases.push({ name: `header name byte ${byte}`, answer: text(`HTTP/1.1 200 OK\r\nX-T${b}st: v\r\n${OK_BODY}`) });
  }
  const framing: Array<[string, string]> = [
    ['two different Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nok'],
    ['two equal Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok'],
    ['Content-Length and chunked', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'],
    ['chunked twice', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'],
    ['an unknown transfer coding', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, foo\r\n\r\nok'],
    ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nok'],
    ['a huge Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nok'],
    ['a Content-Length longer than the body', 'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nshort'],
    ['a Content-Length shorter than the body', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokand-more-bytes-after'],
    ['a truncated chunk', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc'],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n'],
    ['a chunk larger than announced', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokokok\r\n0\r\n\r\n'],
    ['HTTP/0.9 (no status line)', '<html><body>no status line</body></html>'],
    ['an HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['an HTTP/2 settings frame', '\x00\x00\x00\x04\x00\x00\x00\x00\x00'],
    ['HTTP/1.2', 'HTTP/1.2 200 OK\r\nContent-Length: 2\r\n\r\nok'],
    ['HTTP/9.9', 'HTTP/9.9 200 OK\r\nContent-Length: 2\r\n\r\nok'],
    ['a status line only', 'HTTP/1.1 200 OK\r\n'],
    ['nothing at all', ''],
    ['a header without a colon', 'HTTP/1.1 200 OK\r\nNoColonHere\r\nContent-Length: 2\r\n\r\nok'],
    ['a folded header', 'HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 2\r\n\r\nok'],
    ['bare LF line ends', 'HTTP/1.1 200 OK\nContent-Length: 2\n\nok'],
    ['101 without an upgrade', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'],
    ['a 1xx before the answer', 'HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'],
    ['a hostile Set-Cookie', 'HTTP/1.1 200 OK\r\nSet-Cookie: a=\x7f\x01; Domain=..; Path=\x00\r\nSet-Cookie: =;;;\r\nContent-Length: 2\r\n\r\nok'],
    ['a Location to another scheme', 'HTTP/1.1 302 Found\r\nLocation: javascript:alert(1)\r\nContent-Length: 0\r\n\r\n'],
    ['a 200 KB header', `HTTP/1.1 200 OK\r\nX-Big: ${'h'.repeat(200 * 1024)}\r\nContent-Length: 2\r\n\r\nok`],
    ['2000 headers', `HTTP/1.1 200 OK\r\n${Array.from({ length: 2000 }, (_, i) => `X-H${i}: v\r\n`).join('')}Content-Length: 2\r\n\r\nok`],
  ];
  for (const [name, answer] of framing) cases.push({ name, answer: text(answer) });
  cases.push({ name: 'a status line, then silence', answer: text('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'), keepOpen: true });
  return cases;
}

/**
 * A target that answers `/case/<n>` with the crafted bytes of case n, and anything else with a
 * sane page (`/sane`). Raw TCP: Node's HTTP server could not send most of these.
 */
export class HostileTarget {
  private readonly server: net.Server;
  private readonly open = new Set<net.Socket>();
  port = 0;

  constructor(
    readonly cases: HostileCase[],
    readonly host = '127.0.0.2',
  ) {
    this.server = net.createServer((socket) => this.serve(socket));
  }

  url(path: string): string {
    return `http://${this.host}:${this.port}${path}`;
  }

  async start(): Promise<this> {
    this.server.listen(0, this.host);
    await once(this.server, 'listening');
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.open) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(socket: net.Socket): void {
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    socket.on('error', () => socket.destroy());
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > 64 * 1024) socket.destroy();
        return;
      }
      socket.off('data', onData);
      const path = /^[A-Z]+ (\S+)/.exec(head)?.[1] ?? '/';
      const n = /\/case\/(\d+)/.exec(path)?.[1];
      const hostile = n === undefined ? undefined : this.cases[Number(n)];
      if (!hostile) {
        socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 24\r\nConnection: close\r\n\r\n<p id="sane">sane</p>\n\n\n');
        return;
      }
      socket.write(hostile.answer);
      if (!hostile.keepOpen) socket.end();
    };
    socket.on('data', onData);
  }
}
