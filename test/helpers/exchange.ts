import http from 'node:http';

export interface Exchange {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * One request on a connection of its own: a kept-alive connection that the server closes while
 * idle (a stalled test process) would otherwise fail a request that never reached it. Rejects
 * when no complete answer arrives.
 */
export function exchange(url: string, method = 'GET', body?: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('aborted', () => reject(new Error('answer cut')));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
