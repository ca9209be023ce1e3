import type { Logger } from 'pino';
import { error as seleniumError } from 'selenium-webdriver';
import { ClientCancelledError } from '../../time/client-cancelled-error.js';
import { DeadlineExceededError, FetchError } from '../../egress/fetch-errors.js';
import { BrowserFailureError, PageCrashedError } from '../engine-errors.js';
import { withinMs } from '../../time/time-limit.js';
import type { Deadline } from '../../time/deadline.js';
import type { FetchedPage, FetchSpec, Fetcher } from '../fetcher.js';
import type { BrowserPool } from './browser-pool.js';
import type { BrowserSession } from './browser-session.js';
import { PageRender, type RenderLimits } from './page-render.js';
import { assertValidSelector } from './selector-check.js';

/**
 * The `browser=true` engine: a warm session from the pool for one render, always given back in
 * `finally`. A render still running at the deadline is abandoned and its session killed, so a
 * hung page costs one session (replaced in the background), never the request's deadline.
 */
export class BrowserFetcher implements Fetcher {
  constructor(
    private readonly pool: BrowserPool,
    private readonly limits: RenderLimits,
    private readonly logger: Logger,
  ) {}

  async fetch(spec: FetchSpec): Promise<FetchedPage> {
    if (spec.waitForSelector !== undefined) assertValidSelector(spec.waitForSelector);
    if (spec.capture?.kind === 'screenshot' && spec.capture.selector !== undefined) assertValidSelector(spec.capture.selector, 'screenshot_selector');
    try {
      return await this.renderOnce(spec);
    } catch (err) {
      // A session that died while idle fails before the target is contacted: the request is
      // innocent, so it gets one more session. Once the target has been asked, never again (a
      // POST must not be sent twice).
      if (!(err instanceof BrowserFailureError) || err.targetContacted || spec.deadline.expired) throw err;
      this.logger.warn('browser session failed before navigating; retrying on another');
      return await this.renderOnce(spec);
    }
  }

  private async renderOnce(spec: FetchSpec): Promise<FetchedPage> {
    const session = await this.pool.acquire(spec.deadline, spec.cancelled);
    const render = new PageRender(session, spec, this.limits, this.logger.child({ session: session.id }));
    let healthy = false;
    const running = render.run();
    try {
      const page = await untilDeadline(running, spec.deadline, () => session.kill(), spec.cancelled);
      healthy = true;
      return page;
    } catch (err) {
      if (err instanceof ClientCancelledError) {
        // The caller left: loading stops, and the session is reset and reused once the render
        // has let go of it; a render that does not let go soon (a script still running) costs
        // its session instead.
        session.cdp.post('Page.stopLoading', {});
        healthy = (await settlesWithin(running, CANCEL_SETTLE_MS)) && session.alive;
        throw err;
      }
      const failure = await this.translate(err, session, spec.deadline, render.recorder.mainRequestId !== undefined);
      // The target's failures leave the session sound; anything else (a crashed tab too) retires it.
      healthy = err instanceof FetchError && !(err instanceof DeadlineExceededError) && session.alive;
      throw failure;
    } finally {
      render.stop();
      this.pool.release(session, { healthy });
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /**
   * A render's failure in the engine's words. What is not the target's (an FetchError) nor the
   * deadline is the page's when its renderer crashed (Chromium said so, and not that something
   * killed it), and otherwise the browser's: a WebDriver or DevTools error, or the driver's socket
   * refusing once chromedriver died. A browser failure is logged with its cause.
   */
  private async translate(err: unknown, session: BrowserSession, deadline: Deadline, targetContacted: boolean): Promise<Error> {
    if (err instanceof FetchError) return err;
    if (err instanceof seleniumError.TimeoutError || err instanceof seleniumError.ScriptTimeoutError || deadline.expired) {
      return new DeadlineExceededError(`the page did not finish within the ${Math.round(deadline.budgetMs / 1000)}-second deadline`);
    }
    const ended = await rendererEnd(session);
    if (ended !== undefined && ended !== 'killed') {
      this.logger.info({ status: ended }, 'the page crashed its renderer');
      return new PageCrashedError(`it ran out of memory or reached another of the browser's limits (${ended})`);
    }
    this.logger.error({ err }, 'browser failure during render');
    return new BrowserFailureError('the browser failed while rendering', targetContacted);
  }
}

/**
 * How the page's renderer ended, if it did. WebDriver and DevTools are separate sockets: chromedriver
 * may report a crashed tab before Chromium's own word of it is read here, so one round trip to the
 * browser (bounded) first makes sure every event it sent before has been.
 */
async function rendererEnd(session: BrowserSession): Promise<string | undefined> {
  if (session.cdp.pageEnded === undefined && session.alive) {
    await withinMs(session.cdp.sendToBrowser('Browser.getVersion'), 1_000, () => new Error('no answer')).catch(() => undefined);
  }
  return session.cdp.pageEnded;
}

/** How long a render stopped for a caller that left may take to let go of its session. */
const CANCEL_SETTLE_MS = 3_000;

/**
 * Resolves with `work`, or rejects when the deadline passes first (after calling `onExpire`), or
 * when the caller leaves (`cancelled`).
 */
function untilDeadline<T>(work: Promise<T>, deadline: Deadline, onExpire: () => void, cancelled: AbortSignal | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      cancelled?.removeEventListener('abort', gone);
    };
    const gone = () => {
      settle();
      reject(new ClientCancelledError());
    };
    const timer = setTimeout(() => {
      settle();
      onExpire();
      reject(new DeadlineExceededError(`the page did not finish within the ${Math.round(deadline.budgetMs / 1000)}-second deadline`));
    }, deadline.remainingMs());
    work.then(
      (v) => {
        settle();
        resolve(v);
      },
      (e: unknown) => {
        settle();
        reject(e);
      },
    );
    if (cancelled?.aborted) gone();
    else cancelled?.addEventListener('abort', gone, { once: true });
  });
}

/** Whether `work` settles (either way) within `ms`. */
function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    work.then(done, done);
  });
}
