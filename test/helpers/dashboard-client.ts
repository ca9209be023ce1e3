import http from 'node:http';

export interface PageAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The Location of a redirect, as sent. */
  location: string | undefined;
}

/**
 * A browser's part in a dashboard exchange, over plain HTTP: it keeps the session cookie, sends
 * forms as a page of the server's own would (Origin and Sec-Fetch-Site of its origin), and can
 * speak from another loopback address (`localAddress`) to be another client.
 */
export class DashboardClient {
  cookie: string | undefined;

  constructor(
    readonly base: string,
    readonly localAddress = '127.0.0.1',
  ) {}

  request(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<PageAnswer> {
    const body = form === undefined ? undefined : new URLSearchParams(form).toString();
    const sent: Record<string, string> = { ...headers };
    if (this.cookie) sent.cookie = this.cookie;
    if (body !== undefined) {
      sent['content-type'] = 'application/x-www-form-urlencoded';
      sent.origin ??= this.base;
      sent['sec-fetch-site'] ??= 'same-origin';
    }
    for (const [name, value] of Object.entries(sent)) if (value === '') delete sent[name];
    return new Promise((resolve, reject) => {
      const req = http.request(`${this.base}${path}`, { method, headers: sent, localAddress: this.localAddress, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          for (const line of res.headers['set-cookie'] ?? []) {
            const [pair] = line.split(';');
            this.cookie = pair.endsWith('=') ? undefined : pair;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), location: res.headers.location });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  get(path: string): Promise<PageAnswer> {
    return this.request('GET', path);
  }

  /**
   * A form of the dashboard's own, sent from the page `from` (its CSRF token, and the one-use id
   * of its first form that has one) as a browser would.
   */
  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}, from = '/dashboard'): Promise<PageAnswer> {
    const page = (await this.get(from)).body;
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const formId = /name="form_id" value="([^"]+)"/.exec(page)?.[1];
    return this.request('POST', path, { csrf, ...(formId ? { form_id: formId } : {}), ...form }, headers);
  }

  async signIn(secret: string): Promise<PageAnswer> {
    return this.request('POST', '/dashboard/sign-in', { secret });
  }

}

/** The text of the element with this id in a page (tags stripped). */
export function textOf(page: string, id: string): string | undefined {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page);
  return match?.[1].replace(/<[^>]+>/g, '').trim();
}
