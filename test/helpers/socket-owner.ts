import { execFile } from 'node:child_process';
import type { IncomingMessage } from 'node:http';

/**
 * Which processes hold the client end of an established TCP connection: the end on port
 * `clientPort`, connected to port `serverPort` (as a target's `req.socket` sees it: remotePort and
 * localPort). Read from `ss`, so it tells a browser (chromium) from scrapegate's gateway (node)
 * even when both connect from the same loopback address.
 */
export function connectionOwners(clientPort: number, serverPort: number): Promise<number[]> {
  return new Promise((resolve) => {
    execFile('ss', ['-tnpH', 'state', 'established', `( sport = :${clientPort} and dport = :${serverPort} )`], (err, stdout) => {
      if (err) return resolve([]);
      resolve([...new Set([...stdout.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1])))]);
    });
  });
}

/** The processes that opened the connection a request arrived on (looked up while it is still open). */
export function requestOwners(req: IncomingMessage): Promise<number[]> {
  return connectionOwners(req.socket.remotePort ?? 0, req.socket.localPort ?? 0);
}
