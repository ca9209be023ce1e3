import type { Logger } from 'pino';
import { error as seleniumError } from 'selenium-webdriver';
import { BrowserFailureError, DeadlineExceededError, EngineError, PageCrashedError } from '../../errors/engine-errors.js';
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
    const session = await this.pool.acquire(spec.deadline);
    const render = new PageRender(session, spec, this.limits, this.logger.child({ session: session.id }));
    let healthy = false;
    try {
      const page = await untilDeadline(render.run(), spec.deadline, () => session.kill());
      healthy = true;
      return page;
    } catch (err) {
      const failure = await this.translate(err, session, spec.deadline, render.recorder.mainRequestId !== undefined);
      // The target's failures leave the session sound; anything else (a crashed tab too) retires it.
      healthy = err instanceof EngineError && !(err instanceof DeadlineExceededError) && session.alive;
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
   * A render's failure in the engine's words. What is not the target's (an EngineError) nor the
   * deadline is the page's when its renderer crashed (Chromium said so, and not that something
   * killed it), and otherwise the browser's: a WebDriver or DevTools error, or the driver's socket
   * refusing once chromedriver died. A browser failure is logged with its cause.
   */
  private async translate(err: unknown, session: BrowserSession, deadline: Deadline, targetContacted: boolean): Promise<Error> {
    if (err instanceof EngineError) return err;
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

/** Resolves with `work`, or rejects when the deadline passes first (after calling `onExpire`). */
function untilDeadline<T>(work: Promise<T>, deadline: Deadline, onExpire: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onExpire();
      reject(new DeadlineExceededError(`the page did not finish within the ${Math.round(deadline.budgetMs / 1000)}-second deadline`));
    }, deadline.remainingMs());
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
