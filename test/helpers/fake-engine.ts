import type { Attempt, FetchedPage, Fetcher } from '../../src/engines/fetcher.js';
import type { ScrapeRequest } from '../../src/engines/scrape-request.js';

/** What the fake engine does for one path: answer a page, throw, or wait for its caller to leave. */
export type FakeBehaviour = Partial<FetchedPage> | Error | 'hang';

/** A page as an engine answers one, filled in from `part`. */
export function fakePage(part: Partial<FetchedPage> = {}): FetchedPage {
  return {
    finalUrl: 'http://127.0.0.1/page',
    status: 200,
    headers: [['Content-Type', 'text/html; charset=utf-8']],
    body: Buffer.from('<html><head><title>Fake</title></head><body><h1>Hello fake</h1><p>Its text.</p></body></html>'),
    contentType: undefined,
    cookies: [],
    text: undefined,
    xhrs: [],
    iframes: [],
    ...part,
  };
}

/**
 * An engine scripted per URL path, for tests of what lies above the engines (the scrape service,
 * the HTTP edge) without a target or a browser: unknown paths answer a plain page. It records
 * every request and attempt it was given.
 */
export class FakeEngine implements Fetcher {
  readonly seen: Array<{ request: ScrapeRequest; attempt: Attempt }> = [];

  constructor(private readonly byPath: Record<string, FakeBehaviour> = {}) {}

  async fetch(request: ScrapeRequest, attempt: Attempt): Promise<FetchedPage> {
    this.seen.push({ request, attempt });
    const behaviour = this.byPath[request.url.pathname];
    if (behaviour instanceof Error) throw behaviour;
    if (behaviour === 'hang') {
      // Like an engine, it stops when its caller leaves or its deadline passes.
      await new Promise<void>((resolve) => {
        const ends = attempt.cancelled ? AbortSignal.any([attempt.deadline.signal, attempt.cancelled]) : attempt.deadline.signal;
        ends.addEventListener('abort', () => resolve(), { once: true });
      });
      throw new Error('the fake engine was left hanging');
    }
    return fakePage({ finalUrl: request.url.href, ...behaviour });
  }

  async close(): Promise<void> {}
}
