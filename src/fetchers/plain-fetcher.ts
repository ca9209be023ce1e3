import got, { RequestError, type Response } from 'got';
import { CookieJar } from 'tough-cookie';
import { egressAgents } from '../egress/egress-agent.js';
import { fromNodeError } from '../egress/egress-failures.js';
import { DeadlineExceededError, EgressError, EngineError, TargetTooLargeError, TargetUnreachableError } from '../errors/engine-errors.js';
import { connectRetryDelays, pause } from './retry-delays.js';
import type { FetchedPage, FetchSpec, Fetcher } from './fetcher.js';
import { MAX_TARGET_HEADERS } from './target-limits.js';

export interface PlainFetcherOptions {
  maxBodyBytes: number;
  maxRedirects: number;
  userAgent: string;
}

/** The `browser=false` engine: one HTTP exchange (plus redirects) with got, within the deadline. */
export class PlainFetcher implements Fetcher {
  constructor(private readonly options: PlainFetcherOptions) {}

  async fetch(spec: FetchSpec): Promise<FetchedPage> {
    const idempotent = spec.method !== 'POST';
    let lastError: Error | undefined;
    for (const delay of connectRetryDelays(spec.deadline)) {
      if (delay > 0) await pause(delay, spec.deadline.signal);
      if (spec.deadline.expired) break;
      try {
        return await this.once(spec);
      } catch (err) {
        lastError = this.translate(err, spec);
        // A failure to connect (the egress dials before any byte is sent) is safe to retry for
        // any method; a reset after sending only for a method that may be repeated.
        const connectFailure = lastError instanceof EgressError && lastError.transient && lastError.kind !== 'reset';
        const retryable = connectFailure || (idempotent && lastError instanceof EgressError && lastError.kind === 'reset');
        if (!retryable) break;
      }
    }
    throw lastError ?? this.translate(undefined, spec);
  }

  async close(): Promise<void> {}

  private async once(spec: FetchSpec): Promise<FetchedPage> {
    const jar = new CookieJar();
    for (const c of spec.cookies) await jar.setCookie(`${c.name}=${c.value}`, spec.url.href, { ignoreError: true });
    const agent = egressAgents(spec.egress);
    try {
      return await this.exchange(spec, jar, agent);
    } finally {
      agent.http.destroy();
      agent.https.destroy();
    }
  }

  private async exchange(spec: FetchSpec, jar: CookieJar, agent: ReturnType<typeof egressAgents>): Promise<FetchedPage> {
    const stream = got.stream(spec.url, {
      method: spec.method,
      headers: { 'user-agent': this.options.userAgent, ...spec.headers },
      // A got stream with a method that may carry a body waits for one to be written: give it an
      // empty one, so a bodiless POST/PUT/DELETE goes out at once with Content-Length: 0.
      body: spec.method === 'GET' ? undefined : (spec.body ?? Buffer.alloc(0)),
      cookieJar: jar,
      followRedirect: true,
      maxRedirects: this.options.maxRedirects,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: Math.max(1, spec.deadline.remainingMs()) },
      decompress: true,
      agent,
      signal: spec.deadline.signal,
      hooks: {
        // Addresses are checked as the egress dials; a redirect's scheme is checked here.
        beforeRedirect: [(options) => spec.egress.policy.checkScheme(options.url as URL)],
      },
    });
    let response: Response | undefined;
    stream.on('response', (r: Response) => {
      response = r;
      if (r.rawHeaders.length / 2 > MAX_TARGET_HEADERS) stream.destroy(new EgressError('headers', "the target's response headers are too large or too many"));
    });
    const chunks: Buffer[] = [];
    let size = 0;
    // Counted after decompression, so a small compressed bomb stops at the same cap.
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.options.maxBodyBytes) {
        stream.destroy();
        throw new TargetTooLargeError(`the answer exceeds ${this.options.maxBodyBytes} bytes`);
      }
      chunks.push(chunk);
    }
    if (!response) throw new TargetUnreachableError('no response');
    const finalUrl = response.url;
    const cookies = (await jar.getCookies(finalUrl)).map((c) => ({ name: c.key, value: c.value }));
    const headers: Array<[string, string]> = [];
    for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) headers.push([response.rawHeaders[i], response.rawHeaders[i + 1]]);
    return {
      finalUrl,
      status: response.statusCode,
      headers,
      body: Buffer.concat(chunks, size),
      contentType: undefined,
      cookies,
      text: undefined,
      xhrs: [],
      iframes: [],
    };
  }

  private translate(err: unknown, spec: FetchSpec): Error {
    if (err instanceof EngineError) return err;
    const cause = err instanceof RequestError ? err.cause : undefined;
    if (cause instanceof EngineError) return cause;
    const seconds = Math.round(spec.deadline.budgetMs / 1000);
    if (spec.deadline.expired || (err as { code?: string })?.code === 'ETIMEDOUT') {
      return new DeadlineExceededError(`no answer from the target within the ${seconds}-second deadline`);
    }
    const code = (err as { code?: string })?.code;
    if (code === 'ERR_TOO_MANY_REDIRECTS') return new TargetUnreachableError(`more than ${this.options.maxRedirects} redirects`);
    const failure = fromNodeError(cause ?? err) ?? fromNodeError(err);
    if (failure) return failure;
    if (err instanceof RequestError) return new TargetUnreachableError(code ? `network error ${code}` : 'the target sent an answer that is not HTTP');
    return err instanceof Error ? err : new Error(String(err));
  }
}
