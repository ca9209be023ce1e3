import net from 'node:net';

/** What a raw client saw of one upload: the status line (if an answer came) and how much of its body it sent. */
export interface Upload {
  status: number | undefined;
  /** The answer's body, as far as it arrived. */
  body: string;
  bodyBytesSent: number;
  elapsedMs: number;
}

export interface RawUploads {
  port: number;
  /** The request line and headers, each line ending in CRLF, without Content-Length and the blank line. */
  head: string;
  count: number;
  /** The Content-Length declared. */
  declared: number;
  /** How many bytes short of it each client stops (and holds the request open). */
  shortBy: number;
  /** A client still waiting after this long gives up. */
  holdMs: number;
  /** The connections open one after another over this long (0: all at once). */
  spreadMs?: number;
  /** Write the body 256 KiB at a time, this long apart (0: as fast as the server takes it). */
  paceMs?: number;
}

/**
 * Sends a request with a declared body on a raw socket and writes the body as fast as the server
 * takes it, stopping `shortBy` bytes before its end (as an attacker holding the request open
 * does). Resolves when the server answers and closes, or after `holdMs`.
 */
function upload({ port, head, declared, shortBy, holdMs, paceMs }: RawUploads): Promise<Upload> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let sent = 0;
    let answer = '';
    let ended = false;
    const paced = (paceMs ?? 0) > 0;
    const chunk = Buffer.alloc(paced ? 256 * 1024 : 64 * 1024, 0x61);
    const finish = () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      const split = answer.indexOf('\r\n\r\n');
      resolve({ status: status === undefined ? undefined : Number(status), body: split < 0 ? '' : answer.slice(split + 4), bodyBytesSent: sent, elapsedMs: Date.now() - started });
    };
    const timer = setTimeout(finish, holdMs);
    const pump = () => {
      while (!ended && sent < declared - shortBy) {
        const part = chunk.subarray(0, Math.min(chunk.length, declared - shortBy - sent));
        sent += part.length;
        const flushed = socket.write(part);
        if (paced) return void setTimeout(() => (flushed ? pump() : socket.once('drain', pump)), paceMs);
        if (!flushed) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(`${head}Content-Length: ${declared}\r\n\r\n`);
      pump();
    });
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
    });
    socket.on('error', finish);
    socket.on('close', finish);
  });
}

const params = JSON.parse(process.argv[2] ?? '{}') as RawUploads;
const gap = (params.spreadMs ?? 0) / params.count;
const uploads = await Promise.all(Array.from({ length: params.count }, (_, i) => new Promise((r) => setTimeout(r, i * gap)).then(() => upload(params))));
process.stdout.write(`${JSON.stringify(uploads)}\n`);
