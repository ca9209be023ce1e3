import type { Logger } from 'pino';
import { error as seleniumError } from 'selenium-webdriver';
import { ClientCancelledError } from '../../time/client-cancelled-error.js';
import { DeadlineExceededError, FetchError } from '../../egress/fetch-errors.js';
import { BrowserFailureError, PageCrashedError } from '../engine-errors.js';
import { callerLeaves, race, within } from '../../time/deadline-race.js';
import type { Deadline } from '../../time/deadline.js';
import type { Attempt, FetchedPage, Fetcher } from '../fetcher.js';
import type { ScrapeRequest } from '../scrape-request.js';
import type { BrowserPool } from './browser-pool.js';
import type { BrowserSession } from './browser-session.js';
import { PageRender, type RenderLimits } from './page-render.js';
import { assertValidSelector } from './selector-check.js';
import { timed } from './render-steps.js';

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

  async fetch(request: ScrapeRequest, attempt: Attempt): Promise<FetchedPage> {
    if (request.waitForSelector !== undefined) assertValidSelector(request.waitForSelector);
    if (request.capture?.kind === 'screenshot' && request.capture.selector !== undefined) assertValidSelector(request.capture.selector, 'screenshot_selector');
    try {
      return await this.renderOnce(request, attempt);
    } catch (err) {
      // A session that died while idle fails before the target is contacted: the request is
      // innocent, so it gets one more session. Once the target has been asked, never again (a
      // POST must not be sent twice).
      if (!(err instanceof BrowserFailureError) || err.targetContacted || attempt.deadline.expired) throw err;
      this.logger.warn('browser session failed before navigating; retrying on another');
      return await this.renderOnce(request, attempt);
    }
  }

  private async renderOnce(request: ScrapeRequest, attempt: Attempt): Promise<FetchedPage> {
    const session = await timed(0, 'engine.acquire', () => this.pool.acquire(attempt.deadline, attempt.cancelled));
    const render = new PageRender(session, request, attempt, this.limits, this.logger.child({ session: session.id }));
    let healthy = false;
    const running = timed(session.id, 'engine.render', () => render.run());
    try {
      const deadline = attempt.deadline;
      const expired = () => new DeadlineExceededError(`the page did not finish within the ${Math.round(deadline.budgetMs / 1000)}-second deadline`);
      // A render still running at the deadline is abandoned, and its session killed with it.
      const page = await race(running, [{ afterMs: deadline.remainingMs(), error: expired, onEnd: () => session.kill() }, callerLeaves(attempt.cancelled)]);
      healthy = true;
      return page;
    } catch (err) {
      if (err instanceof ClientCancelledError) {
        // The caller left: loading stops, and the session is reset and reused once the render
        // has let go of it; a render that does not let go soon (a script still running) costs
        // its session instead.
        session.cdp.post('Page.stopLoading', {});
        const settled = await race(running.then(() => true, () => true), [within(CANCEL_SETTLE_MS, () => new Error('the render did not stop'))]).catch(() => false);
        healthy = settled && session.alive;
        throw err;
      }
      const failure = await this.translate(err, session, attempt.deadline, render.recorder.mainRequestId !== undefined);
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
    await race(session.cdp.sendToBrowser('Browser.getVersion'), [within(1_000, () => new Error('no answer'))]).catch(() => undefined);
  }
  return session.cdp.pageEnded;
}

/** How long a render stopped for a caller that left may take to let go of its session. */
const CANCEL_SETTLE_MS = 3_000;
