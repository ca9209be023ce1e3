import got, { RequestError, type Response } from 'got';
import { CookieJar } from 'tough-cookie';
import {
  DeadlineExceededError,
  EngineError,
  EngineUnavailableError,
  TargetTooLargeError,
  TargetUnreachableError,
} from '../errors/engine-errors.js';
import type { TargetPolicy } from '../egress/target-policy.js';
import { connectRetryDelays, pause } from './retry-delays.js';
import type { FetchedPage, FetchSpec, Fetcher } from './fetcher.js';

export interface PlainFetcherOptions {
  policy: TargetPolicy;
  maxBodyBytes: number;
  maxRedirects: number;
  userAgent: string;
}

/** Errors raised before the request could have reached the target: safe to retry for any method. */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);
/** Errors that may come after the request was sent: retried only for idempotent methods. */
const TRANSPORT_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ERR_STREAM_PREMATURE_CLOSE', 'HPE_INVALID_CONSTANT']);

/** The `browser=false` engine: one HTTP exchange (plus redirects) with got, within the deadline. */
export class PlainFetcher implements Fetcher {
  constructor(private readonly options: PlainFetcherOptions) {}

  async fetch(spec: FetchSpec): Promise<FetchedPage> {
    if (spec.proxy) throw new EngineUnavailableError('upstream proxies are not supported by the plain engine yet');
    this.options.policy.checkUrl(spec.url);
    const idempotent = spec.method !== 'POST';
    let lastError: unknown;
    for (const delay of connectRetryDelays(spec.deadline)) {
      if (delay > 0) await pause(delay, spec.deadline.signal);
      if (spec.deadline.expired) break;
      try {
        return await this.once(spec);
      } catch (err) {
        lastError = err;
        const code = (err as { code?: string }).code ?? '';
        const retryable = CONNECT_ERRORS.has(code) || (idempotent && TRANSPORT_ERRORS.has(code));
        if (!retryable || err instanceof EngineError) break;
      }
    }
    throw this.translate(lastError, spec);
  }

  async close(): Promise<void> {}

  private async once(spec: FetchSpec): Promise<FetchedPage> {
    const jar = new CookieJar();
    for (const c of spec.cookies) await jar.setCookie(`${c.name}=${c.value}`, spec.url.href, { ignoreError: true });
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
      dnsLookup: this.options.policy.lookup,
      signal: spec.deadline.signal,
      hooks: {
        beforeRedirect: [(options) => this.options.policy.checkUrl(options.url as URL)],
      },
    });
    let response: Response | undefined;
    stream.on('response', (r: Response) => {
      response = r;
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
    if (code === 'ENOTFOUND') return new TargetUnreachableError(`the host ${spec.url.hostname} does not resolve`);
    if (err instanceof RequestError) return new TargetUnreachableError(describe(code, err.message));
    return err instanceof Error ? err : new Error(String(err));
  }
}

function describe(code: string | undefined, message: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the target';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no route to the target';
    default:
      return code ? `network error ${code}` : message.replace(/https?:\/\/\S+/g, '<url>');
  }
}
