import type { Logger } from 'pino';
import { By, error as seleniumError, until, type WebElement } from 'selenium-webdriver';
import { DeadlineExceededError, InvalidSelectorError, SelectorTimeoutError, TargetUnreachableError } from '../../errors/engine-errors.js';
import type { FetchedPage, FetchSpec, IframeRecord } from '../fetcher.js';
import { connectRetryDelays, pause } from '../retry-delays.js';
import type { BrowserSession } from './browser-session.js';
import { NetworkRecorder } from './network-recorder.js';
import { RequestInterceptor } from './request-interceptor.js';

/** Kept back from the deadline for reading the page once loading is cut off. */
const CAPTURE_RESERVE_MS = 1_000;
const MAX_IFRAMES = 20;
/** Navigation failures worth another attempt while time remains (the target may come up). */
const RETRYABLE = /ERR_(CONNECTION_(REFUSED|RESET|CLOSED|FAILED|ABORTED|TIMED_OUT)|EMPTY_RESPONSE|NAME_RESOLUTION_FAILED|ADDRESS_UNREACHABLE|NETWORK_CHANGED|TIMED_OUT)/;

// innerText lays the page out: only asked for when the answer needs the text.
const CAPTURE_SCRIPT = `return {
  html: document.documentElement ? document.documentElement.outerHTML : '',
  text: arguments[0] && document.body ? document.body.innerText : null,
  url: location.href,
};`;

/** One request's render in one session: navigate, run the snippet, wait, and read the page. */
export class PageRender {
  readonly recorder: NetworkRecorder;
  private readonly interceptor: RequestInterceptor;

  constructor(
    private readonly session: BrowserSession,
    private readonly spec: FetchSpec,
    private readonly logger: Logger,
  ) {
    this.recorder = new NetworkRecorder(session.cdp, session.mainFrameId, spec.collectExtras);
    const rewrite = spec.method !== 'GET' || Object.keys(spec.headers).length > 0 ? { method: spec.method, body: spec.body, headers: spec.headers } : undefined;
    this.interceptor = new RequestInterceptor(session.cdp, session.mainFrameId, spec.blockResources, rewrite);
  }

  get origins(): Set<string> {
    return this.recorder.origins;
  }

  stop(): void {
    this.recorder.stop();
    this.interceptor.stop();
  }

  async run(): Promise<FetchedPage> {
    const { driver, cdp } = this.session;
    const { spec } = this;
    this.recorder.start();
    await this.interceptor.enable();
    // Set for the target's URL before navigating, so the very first request carries them.
    for (const c of spec.cookies) await cdp.send('Network.setCookie', { name: c.name, value: c.value, url: spec.url.href });

    await this.navigate();
    const main = this.recorder.mainResponse;
    if (!main) {
      if (this.remaining() <= 0 || !this.recorder.mainFailure) throw new DeadlineExceededError(`the page did not answer within the ${this.seconds()}-second deadline`);
      throw new TargetUnreachableError(this.recorder.mainFailure.replace(/^net::/, ''));
    }
    const headers = this.recorder.mainHeaders();

    if (spec.returnPageSource) {
      const body = this.recorder.mainRequestId ? await this.recorder.body(this.recorder.mainRequestId) : undefined;
      if (!body) throw new DeadlineExceededError(`the page source did not arrive within the ${this.seconds()}-second deadline`);
      return { ...(await this.finish(main.url)), finalUrl: main.url, status: main.status, headers, body, contentType: undefined, text: undefined };
    }

    if (spec.jsSnippet) await this.runSnippet(spec.jsSnippet);
    if (spec.waitForSelector !== undefined) {
      try {
        await driver.wait(until.elementLocated(By.css(spec.waitForSelector)), Math.max(1, this.remaining()));
      } catch (err) {
        if (err instanceof seleniumError.TimeoutError) {
          throw new SelectorTimeoutError(`"${spec.waitForSelector}" did not appear within the ${this.seconds()}-second deadline`);
        }
        if (err instanceof seleniumError.InvalidSelectorError) throw new InvalidSelectorError(`"${spec.waitForSelector}" is not a valid CSS selector`);
        throw err;
      }
    }
    const page = (await driver.executeScript(CAPTURE_SCRIPT, spec.wantsText)) as { html: string; text: string | null; url: string };
    return {
      ...(await this.finish(page.url)),
      finalUrl: page.url,
      status: main.status,
      headers,
      body: Buffer.from(page.html, 'utf8'),
      contentType: 'text/html; charset=utf-8',
      text: page.text ?? undefined,
    };
  }

  private remaining(): number {
    return this.spec.deadline.remainingMs() - CAPTURE_RESERVE_MS;
  }

  private seconds(): number {
    return Math.round(this.spec.deadline.budgetMs / 1000);
  }

  /** Loads the page, cut off before the deadline; a failed connection is retried while time remains. */
  private async navigate(): Promise<void> {
    const { driver } = this.session;
    for (const delay of connectRetryDelays(this.spec.deadline)) {
      if (delay > 0) await pause(delay, this.spec.deadline.signal);
      if (this.remaining() <= 0) return;
      await driver.manage().setTimeouts({ pageLoad: Math.max(1, this.remaining()), script: Math.max(1, this.remaining()) });
      try {
        await driver.get(this.spec.url.href);
      } catch (err) {
        // A page that never finishes loading is stopped here and answered with what it has.
        if (!(err instanceof seleniumError.TimeoutError)) throw err;
      }
      // WebDriver and CDP are separate sockets: when the main response has not been seen yet,
      // a CDP round trip makes sure every event Chrome sent before the load finished has been.
      if (!this.recorder.mainResponse) await this.session.cdp.send('Runtime.evaluate', { expression: '0' });
      if (this.remaining() <= 0) return;
      if (this.recorder.mainResponse || !RETRYABLE.test(this.recorder.mainFailure ?? '')) return;
    }
  }

  /** The snippet's errors are the page's business: logged, and the page is still answered. */
  private async runSnippet(source: string): Promise<void> {
    try {
      await this.session.driver.executeScript(source);
    } catch (err) {
      this.logger.info({ err: (err as Error).message.split('\n')[0] }, 'js_snippet failed');
    }
  }

  private async finish(url: string): Promise<Pick<FetchedPage, 'cookies' | 'xhrs' | 'iframes'>> {
    const { cookies } = await this.session.cdp.send<{ cookies: Array<{ name: string; value: string }> }>('Network.getCookies', { urls: [url] });
    return {
      cookies: cookies.map(({ name, value }) => ({ name, value })),
      xhrs: this.spec.collectExtras ? await this.recorder.xhrRecords() : [],
      iframes: this.spec.collectExtras ? await this.iframes() : [],
    };
  }

  /** Each top-level iframe's HTML, read from inside the frame (so cross-origin ones too). */
  private async iframes(): Promise<IframeRecord[]> {
    const { driver } = this.session;
    const frames: WebElement[] = (await driver.findElements(By.css('iframe'))).slice(0, MAX_IFRAMES);
    const out: IframeRecord[] = [];
    for (const frame of frames) {
      const src = (await frame.getAttribute('src')) ?? '';
      let html = '';
      try {
        await driver.switchTo().frame(frame);
        html = String(await driver.executeScript('return document.documentElement ? document.documentElement.outerHTML : ""'));
      } catch {
        // a frame that went away while we looked
      } finally {
        await driver.switchTo().defaultContent();
      }
      out.push({ src, html });
    }
    return out;
  }
}
