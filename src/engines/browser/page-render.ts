import type { Logger } from 'pino';
import { fromChromeError } from '../../egress/egress-failures.js';
import { DeadlineExceededError, EgressError, type FetchError, TargetTooLargeError, TargetUnreachableError, TargetUnusableError } from '../../egress/fetch-errors.js';
import { SelectorTimeoutError } from '../engine-errors.js';
import { ClientCancelledError } from '../../time/client-cancelled-error.js';
import type { Attempt, FetchedPage } from '../fetcher.js';
import type { ScrapeRequest } from '../scrape-request.js';
import { connectRetryDelays, pause } from '../retry-delays.js';
import { MAX_TARGET_HEADERS } from '../target-limits.js';
import type { BrowserSession } from './browser-session.js';
import { NetworkRecorder } from './network-recorder.js';
import { PageCapture } from './page-capture.js';
import { PageReader, type PageContent } from './page-reader.js';
import { RequestInterceptor } from './request-interceptor.js';
import { selectorAppears } from './selector-wait.js';
import { splitCredentials } from './url-credentials.js';
import { timed } from './render-steps.js';
import { loadPage } from './page-load.js';
import { assertLanded, renderActions } from './actions/render-actions.js';

/** Kept back from the deadline for reading the page once loading is cut off. */
const CAPTURE_RESERVE_MS = 1_000;
/** How often a selector the page does not show yet is looked for again. */
const SNIPPET_GROUP = 'scrapegate-snippet';
/** How long to wait for Chrome to say the main document's body ended, once the page has loaded. */
const BODY_SETTLE_MS = 500;

export interface RenderLimits {
  maxBodyBytes: number;
  maxRedirects: number;
}

/** One request's render in one session: navigate, run the snippet, wait, and read the page. */
export class PageRender {
  readonly recorder: NetworkRecorder;
  private readonly interceptor: RequestInterceptor;
  private readonly reader: PageReader;
  private exceeded: 'redirects' | 'body' | undefined;
  /** The URL as Chromium is given it: without its user name and password. */
  private readonly url: URL;
  /** The deadline, or the caller leaving: whichever ends a wait first. */
  private readonly ends: AbortSignal;
  /** The loader of the document the main frame last committed (Page.frameNavigated). */
  private committedLoader: string | undefined;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly session: BrowserSession,
    private readonly request: ScrapeRequest,
    private readonly attempt: Attempt,
    private readonly limits: RenderLimits,
    private readonly logger: Logger,
  ) {
    this.recorder = new NetworkRecorder(session.cdp, session.mainFrameId, this.attempt.needs.extras, {
      ...limits,
      onExceeded: (why) => {
        this.exceeded ??= why;
        session.cdp.post('Page.stopLoading', {});
      },
    });
    const { url, authorization } = splitCredentials(this.request.url);
    this.url = url;
    const credentials = authorization ? { authorization, origin: url.origin } : undefined;
    const rewrite =
      this.request.method !== 'GET' || Object.keys(this.request.headers).length > 0 || credentials ? { method: this.request.method, body: this.request.body, headers: this.request.headers, credentials } : undefined;
    this.interceptor = new RequestInterceptor(session.cdp, session.mainFrameId, this.request.blockResources, rewrite);
    this.reader = new PageReader(session.cdp, session.mainFrameId);
    this.ends = this.attempt.cancelled ? AbortSignal.any([this.attempt.deadline.signal, this.attempt.cancelled]) : this.attempt.deadline.signal;
  }

  stop(): void {
    for (const off of this.unsubscribe.splice(0)) off();
    this.recorder.stop();
    this.interceptor.stop();
    this.session.gateway.finish();
  }

  async run(): Promise<FetchedPage> {
    const { cdp } = this.session;
    const step = <T>(name: string, work: () => Promise<T>) => timed(this.session.id, `render.${name}`, work);
    await step('prepare', async () => {
      this.session.gateway.serve(this.attempt.egress);
      this.recorder.start();
      this.watchPage();
      await this.interceptor.enable();
      // Set for the target's URL before navigating, so the very first request carries them.
      for (const c of this.request.cookies) await cdp.send('Network.setCookie', { name: c.name, value: c.value, url: this.url.href });
      await this.session.useWindow(PageCapture.window(this.request.capture));
    });

    await step('navigate', () => this.navigate());
    this.leaveIfCancelled();
    if (this.exceeded === 'redirects') throw new TargetUnreachableError(`more than ${this.limits.maxRedirects} redirects`);
    if (this.exceeded === 'body') throw new TargetTooLargeError(`the answer exceeds ${this.limits.maxBodyBytes} bytes`);
    const main = this.recorder.mainResponse;
    if (!main) {
      const failure = this.navigationFailure();
      if (!failure) throw new DeadlineExceededError(`the page did not answer within the ${this.seconds()}-second deadline`);
      throw failure;
    }
    await step('bodySettled', () => this.recorder.mainBodySettled(Math.min(BODY_SETTLE_MS, this.remaining())));
    if (this.recorder.mainCutOff) {
      // A truncated page is not the page: answered as plain mode answers a reset, uncharged.
      throw this.session.gateway.failureFor(main.url) ?? new EgressError('reset', `the connection was cut before the page was complete (${this.recorder.mainCutOff.replace(/^net::/, '')})`);
    }
    const headers = this.recorder.mainHeaders();
    if (headers.length > MAX_TARGET_HEADERS) throw new EgressError('headers', "the target's response headers are too large or too many");
    // With nothing to run on the page first, its DOM is read while the commit is checked (one
    // round trip less); a snippet or a selector wait acts on the page, so only ever on this
    // request's own document.
    const readAtOnce = !this.request.returnPageSource && !this.request.jsSnippet && this.request.waitForSelector === undefined && !this.request.actions?.length;
    const [committed, early] = await step('read', () => Promise.all([this.committed(), readAtOnce ? this.capture() : undefined]));
    if (!committed) {
      // The window still shows the document from before (another request's, frozen): never use it.
      if (this.request.capture) throw new TargetUnusableError('the target answered no page to capture (a file download or an empty answer)');
      if (main.status === 204 || main.status === 205 || main.status === 304) {
        return { ...(await this.finish(main.url)), finalUrl: main.url, status: main.status, headers, body: Buffer.alloc(0), contentType: undefined, text: '' };
      }
      const type = headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1] ?? 'no content type';
      throw new TargetUnusableError(`it is a file to download (${type}), not a page: fetch it with browser=false`);
    }

    if (this.request.returnPageSource) {
      const body = this.recorder.mainRequestId ? await this.recorder.body(this.recorder.mainRequestId) : undefined;
      if (!body) throw new DeadlineExceededError(`the page source did not arrive within the ${this.seconds()}-second deadline`);
      return { ...(await this.finish(main.url)), finalUrl: main.url, status: main.status, headers, body, contentType: undefined, text: undefined };
    }

    if (this.request.jsSnippet) await this.runSnippet(this.request.jsSnippet);
    if (this.request.waitForSelector !== undefined) await this.waitFor(this.request.waitForSelector);
    const acting = { session: this.session, reader: this.reader, deadline: this.attempt.deadline, ends: this.ends, maxBodyBytes: this.limits.maxBodyBytes };
    const actions = this.request.actions?.length ? await step('actions', () => renderActions(acting, this.request.actions ?? [])) : undefined;
    const page = early ?? (await this.capture());
    if (actions) assertLanded(page.url);
    const capture = this.request.capture ? await new PageCapture(this.session.cdp, this.reader).take(this.request.capture, Math.max(1, this.attempt.deadline.remainingMs())) : undefined;
    const finished = await step('finish', () => this.finish(page.url));
    return {
      capture,
      ...(actions ? { actions } : {}),
      ...finished,
      finalUrl: page.url,
      status: main.status,
      headers,
      body: Buffer.from(page.html, 'utf8'),
      contentType: 'text/html; charset=utf-8',
      text: page.text ?? undefined,
    };
  }

  /** The rendered DOM, read in an isolated world and capped before it leaves the browser. */
  private capture(): Promise<PageContent> {
    return this.reader.main(this.limits.maxBodyBytes, this.attempt.needs.text);
  }

  /** A render whose caller has left stops at its next step, letting go of the session. */
  private leaveIfCancelled(): void {
    if (this.attempt.cancelled?.aborted) throw new ClientCancelledError();
  }

  private remaining(): number {
    return this.attempt.deadline.remainingMs() - CAPTURE_RESERVE_MS;
  }

  private seconds(): number {
    return Math.round(this.attempt.deadline.budgetMs / 1000);
  }

  /**
   * For the whole render: a dialog the page opens (alert, confirm, prompt) is dismissed at once,
   * rather than holding the page's loading and scripts until the deadline; and each document the
   * main frame commits gets the reader's isolated world while it loads.
   */
  private watchPage(): void {
    const { cdp } = this.session;
    this.unsubscribe.push(
      cdp.on('Page.javascriptDialogOpening', () => cdp.post('Page.handleJavaScriptDialog', { accept: false })),
      cdp.on('Page.frameNavigated', (p) => {
        const frame = p.frame as { id?: string; parentId?: string; loaderId?: string } | undefined;
        if (frame?.id !== this.session.mainFrameId || frame.parentId !== undefined) return;
        this.committedLoader = frame.loaderId;
        this.reader.prepareMain();
      }),
    );
  }

  /** Loads the page, cut off before the deadline; a failed connection is retried while time remains. */
  private async navigate(): Promise<void> {
    for (const delay of connectRetryDelays(this.attempt.deadline)) {
      if (delay > 0) await pause(delay, this.ends);
      this.leaveIfCancelled();
      if (this.remaining() <= 0) return;
      // A page that never finishes loading is stopped and answered with what it has; a navigation
      // that failed on the network is the target's failure, not the browser's.
      const loaded = await loadPage(this.session.cdp, this.session.mainFrameId, this.url.href, Math.max(1, this.remaining()));
      if (loaded.errorText?.startsWith('net::')) this.recorder.mainFailure ??= loaded.errorText;
      if (this.remaining() <= 0 || this.exceeded || this.recorder.mainResponse) return;
      const failure = this.navigationFailure();
      // Retried while time remains, as the plain engine does: a failure to connect for any
      // method, a reset after sending only for one that may be repeated.
      const retryable = failure instanceof EgressError && failure.transient && (failure.kind !== 'reset' || this.request.method !== 'POST');
      if (!retryable) return;
    }
  }

  /**
   * Whether the main document's answer became the page (a download or a 204 never does): known
   * from the frame's events when it did, asked of the frame tree when they do not say so.
   */
  private async committed(): Promise<boolean> {
    if (this.recorder.mainRequestId !== undefined && this.committedLoader === this.recorder.mainRequestId) return true;
    return (await this.reader.mainLoaderId()) === this.recorder.mainRequestId;
  }

  /** Why the main document did not load, in the egress layer's words when the gateway saw it. */
  private navigationFailure(): FetchError | undefined {
    const text = this.recorder.mainFailure;
    if (!text) return undefined;
    return (
      this.session.gateway.failureFor(this.recorder.mainUrl ?? this.url.href) ??
      fromChromeError(text) ??
      new TargetUnreachableError(text.replace(/^net::/, ''))
    );
  }

  /**
   * Runs the caller's script in the page's own world (it is there to act on the page), as the
   * body of a function, awaited if it returns a promise, as WebDriver's executeScript would, but
   * through DevTools: a page that redefined JSON or Promise would hang chromedriver's wrapper.
   * The snippet's errors are the page's business: logged, and the page is still answered.
   */
  private async runSnippet(source: string): Promise<void> {
    const evaluated = await this.session.cdp.send<{ exceptionDetails?: { exception?: { className?: string } } }>(
      'Runtime.evaluate',
      { expression: `(function () {\n${source}\n}).call(window)`, awaitPromise: true, objectGroup: SNIPPET_GROUP, userGesture: false },
      // A snippet that never returns is the deadline's to end (the session is killed with it).
      this.attempt.deadline.remainingMs() + 1_000,
    );
    this.session.cdp.post('Runtime.releaseObjectGroup', { objectGroup: SNIPPET_GROUP });
    // Only the kind of error: its message may quote the script, which is the caller's secret.
    const failure = evaluated.exceptionDetails;
    if (failure) this.logger.info({ errorClass: String(failure.exception?.className ?? 'unknown').slice(0, 64) }, 'js_snippet failed');
  }

  /** Waits for the selector, polling from an isolated world, until the render's time is up. */
  private async waitFor(selector: string): Promise<void> {
    const appeared = await selectorAppears(this.reader, selector, { remainingMs: () => this.remaining(), ends: this.ends, betweenPolls: () => this.leaveIfCancelled() });
    if (!appeared) throw new SelectorTimeoutError(`"${selector}" did not appear within the ${this.seconds()}-second deadline`);
  }

  private async finish(url: string): Promise<Pick<FetchedPage, 'cookies' | 'xhrs' | 'iframes'>> {
    const cookies = this.attempt.needs.cookies
      ? (await this.session.cdp.send<{ cookies: Array<{ name: string; value: string }> }>('Network.getCookies', { urls: [url] })).cookies
      : [];
    return {
      cookies: cookies.map(({ name, value }) => ({ name, value })),
      xhrs: this.attempt.needs.extras ? await this.recorder.xhrRecords() : [],
      iframes: this.attempt.needs.extras ? await this.reader.iframes(this.limits.maxBodyBytes) : [],
    };
  }
}
