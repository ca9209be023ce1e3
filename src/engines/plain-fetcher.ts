import type { ClientRequest } from 'node:http';
import got, { RequestError, type Response } from 'got';
import { CookieJar } from 'tough-cookie';
import type { HttpAgents } from '../egress/egress-agent.js';
import { fromNodeError, fromParserError, invalidStatus } from '../egress/egress-failures.js';
import { DeadlineExceededError, EgressError, FetchError, TargetForbiddenError, TargetTooLargeError, TargetUnreachableError } from '../egress/fetch-errors.js';
import { ClientCancelledError } from '../time/client-cancelled-error.js';
import type { Deadline } from '../time/deadline.js';
import { connectRetryDelays, pause } from './retry-delays.js';
import type { Attempt, FetchedPage, Fetcher } from './fetcher.js';
import type { ScrapeRequest } from './scrape-request.js';
import { MAX_TARGET_HEADERS } from './target-limits.js';

export interface PlainFetcherOptions {
  maxBodyBytes: number;
  maxRedirects: number;
  userAgent: string;
}

/** Per-request state got's instance-level hooks reach through `options.context`. */
interface ExchangeContext {
  request: ScrapeRequest;
  attempt: Attempt;
  /** Created on the first cookie: most pages set none, and a jar costs a third of a request. */
  jar: CookieJar | undefined;
}

function setCookies(response: Pick<Response, 'headers'>): string[] {
  const value = response.headers['set-cookie'];
  return value === undefined ? [] : ([] as string[]).concat(value);
}

async function storeCookies(jar: CookieJar, raw: string[], url: string): Promise<void> {
  for (const cookie of raw) await jar.setCookie(cookie, url, { ignoreError: true });
}

/** The `browser=false` engine: one HTTP exchange (plus redirects) with got, within the deadline. */
export class PlainFetcher implements Fetcher {
  /** One configured got for every request: only what differs per request is passed per request. */
  private readonly client;

  constructor(private readonly options: PlainFetcherOptions) {
    this.client = got.extend({
      headers: { 'user-agent': options.userAgent },
      followRedirect: true,
      maxRedirects: options.maxRedirects,
      throwHttpErrors: false,
      retry: { limit: 0 },
      decompress: true,
      hooks: {
        beforeRedirect: [
          async (next, response) => {
            // got copies `context` for each hop: the state lives one reference further down.
            const context = (next.context as { exchange: ExchangeContext }).exchange;
            // Addresses are checked as the egress dials; a redirect's scheme is checked here.
            context.attempt.egress.policy.checkScheme(next.url as URL);
            // got drops the URL's credentials for another host or port, but keeps them for another
            // scheme (https → http on default ports): they go to the URL's own origin only.
            if ((next.url as URL).origin !== context.request.url.origin) {
              next.username = '';
              next.password = '';
              delete next.headers.authorization;
            }
            // A cookie set on the way must reach the next hop: the jar starts with it.
            const raw = setCookies(response);
            if (context.jar || raw.length === 0) return;
            context.jar = new CookieJar();
            await storeCookies(context.jar, raw, response.url);
            next.cookieJar = context.jar;
          },
        ],
      },
    });
  }

  async fetch(request: ScrapeRequest, attempt: Attempt): Promise<FetchedPage> {
    const idempotent = request.method !== 'POST';
    let lastError: Error | undefined;
    const ends = attempt.cancelled ? AbortSignal.any([attempt.deadline.signal, attempt.cancelled]) : attempt.deadline.signal;
    for (const delay of connectRetryDelays(attempt.deadline)) {
      if (delay > 0) await pause(delay, ends);
      if (attempt.cancelled?.aborted) throw new ClientCancelledError();
      if (attempt.deadline.expired) break;
      try {
        return await this.once(request, attempt);
      } catch (err) {
        lastError = this.translate(err, attempt);
        // A failure to connect (the egress dials before any byte is sent) is safe to retry for
        // any method; a reset after sending only for a method that may be repeated.
        const connectFailure = lastError instanceof EgressError && lastError.transient && lastError.kind !== 'reset';
        const retryable = connectFailure || (idempotent && lastError instanceof EgressError && lastError.kind === 'reset');
        if (!retryable) break;
      }
    }
    throw lastError ?? this.translate(undefined, attempt);
  }

  async close(): Promise<void> {}

  private async once(request: ScrapeRequest, attempt: Attempt): Promise<FetchedPage> {
    const context: ExchangeContext = { request, attempt, jar: undefined };
    if (request.cookies.length > 0) {
      context.jar = new CookieJar();
      for (const c of request.cookies) await context.jar.setCookie(`${c.name}=${c.value}`, request.url.href, { ignoreError: true });
    }
    const { agents, release } = attempt.egress.httpAgents();
    try {
      return await this.exchange(context, agents);
    } finally {
      release();
    }
  }

  private async exchange(context: ExchangeContext, agent: HttpAgents): Promise<FetchedPage> {
    const { request, attempt } = context;
    const stream = this.client.stream(request.url, {
      method: request.method,
      headers: request.headers,
      // A got stream with a method that may carry a body waits for one to be written: give it an
      // empty one, so a bodiless POST/PUT/DELETE goes out at once with Content-Length: 0.
      body: request.method === 'GET' ? undefined : (request.body ?? Buffer.alloc(0)),
      cookieJar: context.jar,
      // The request's deadline, as got's own timer (an AbortSignal as well would be a second one).
      timeout: { request: Math.max(1, attempt.deadline.remainingMs()) },
      agent,
      context: { exchange: context },
    });
    const { response, chunks, size } = await this.collect(stream, attempt.deadline, attempt.cancelled);
    const finalUrl = response.url;
    const cookies = attempt.needs.cookies ? await this.finalCookies(context, response, finalUrl) : [];
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

  /** Cookies visible to the final URL: the jar's, with those the last answer set. */
  private async finalCookies(context: ExchangeContext, response: Response, finalUrl: string): Promise<Array<{ name: string; value: string }>> {
    const lastCookies = setCookies(response);
    if (!context.jar && lastCookies.length > 0) await storeCookies((context.jar = new CookieJar()), lastCookies, finalUrl);
    return context.jar ? (await context.jar.getCookies(finalUrl)).map((c) => ({ name: c.key, value: c.value })) : [];
  }

  /**
   * The response and its body, counted after decompression so that a small compressed bomb stops
   * at the same cap. Events, not async iteration: a promise per chunk is measurable per request.
   */
  private collect(stream: ReturnType<typeof got.stream>, deadline: Deadline, cancelled: AbortSignal | undefined): Promise<{ response: Response; chunks: Buffer[]; size: number }> {
    const max = this.options.maxBodyBytes;
    return new Promise((resolve, reject) => {
      let response: Response | undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      // got's own timer is the usual end of a slow exchange; this is the one that cannot fail to
      // fire (a 101 to a plain GET, say, leaves got waiting for an answer that never comes).
      const expire = () => stream.destroy(new DeadlineExceededError(`no answer from the target within the ${Math.round(deadline.budgetMs / 1000)}-second deadline`));
      if (deadline.signal.aborted) expire();
      deadline.signal.addEventListener('abort', expire, { once: true });
      // The caller hung up: the exchange is cut now, not left to run to its deadline.
      const gone = () => stream.destroy(new ClientCancelledError());
      if (cancelled?.aborted) gone();
      cancelled?.addEventListener('abort', gone, { once: true });
      // Let go of both signals however the exchange ends: a stream that ended need not emit
      // 'close', and a job item's signal lives as long as the service, so a listener left on it
      // per page made every later add and remove slower (they scan the signal's listeners).
      const release = () => {
        deadline.signal.removeEventListener('abort', expire);
        cancelled?.removeEventListener('abort', gone);
      };
      stream.once('close', release);
      // Switching protocols is no answer to a request that did not ask to: refused at once.
      stream.once('request', (req: ClientRequest) => req.once('upgrade', () => stream.destroy(invalidStatus(101))));
      stream.on('response', (r: Response) => {
        response = r;
        if (r.statusCode < 100 || r.statusCode > 599) stream.destroy(invalidStatus(r.statusCode));
        else if (r.rawHeaders.length / 2 > MAX_TARGET_HEADERS) stream.destroy(new EgressError('headers', "the target's response headers are too large or too many"));
      });
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > max) stream.destroy(new TargetTooLargeError(`the answer exceeds ${max} bytes`));
        else chunks.push(chunk);
      });
      stream.once('error', (err: Error) => {
        release();
        reject(err);
      });
      stream.once('end', () => {
        release();
        if (response) resolve({ response, chunks, size });
        else reject(new TargetUnreachableError('no response'));
      });
    });
  }

  private translate(err: unknown, attempt: Attempt): Error {
    if (err instanceof FetchError || err instanceof ClientCancelledError) return err;
    const cause = err instanceof RequestError ? err.cause : undefined;
    if (cause instanceof FetchError || cause instanceof ClientCancelledError) return cause;
    if (attempt.cancelled?.aborted) return new ClientCancelledError();
    const seconds = Math.round(attempt.deadline.budgetMs / 1000);
    if (attempt.deadline.expired || (err as { code?: string })?.code === 'ETIMEDOUT') {
      return new DeadlineExceededError(`no answer from the target within the ${seconds}-second deadline`);
    }
    const code = (err as { code?: string })?.code;
    if (code === 'ERR_TOO_MANY_REDIRECTS') return new TargetUnreachableError(`more than ${this.options.maxRedirects} redirects`);
    if (code === 'ERR_UNSUPPORTED_PROTOCOL') return new TargetForbiddenError('only http and https URLs can be scraped, and a redirect led elsewhere');
    const failure = fromNodeError(cause ?? err) ?? fromNodeError(err) ?? fromParserError(cause ?? err) ?? fromParserError(err);
    if (failure) return failure;
    if (err instanceof RequestError) return new TargetUnreachableError(code ? `network error ${code}` : 'the target sent an answer that is not HTTP');
    return err instanceof Error ? err : new Error(String(err));
  }
}
