import { Browser, Builder, type WebDriver } from 'selenium-webdriver';
import type { OwnPorts } from '../../egress/address-policy.js';
import { EgressGateway } from '../../egress/egress-gateway.js';
import { CdpSession } from './cdp-session.js';
import { chromiumOptions } from './chromium-options.js';
import { DriverProcess } from './driver-process.js';

export interface SessionOptions {
  chromiumPath: string;
  chromedriverPath: string;
  /** A Selenium Grid URL; when unset each session gets a local chromedriver of its own. */
  remoteUrl: string | undefined;
  /** Where the session's egress gateway listens; the browser must be able to reach it there. */
  gatewayHost: string;
  /** The session registers its gateway, driver and DevTools ports here: no page may reach them. */
  ownPorts: OwnPorts;
  /** A start that takes longer is given up (and the session quit if it completes later). */
  startTimeoutMs?: number;
}

let nextId = 1;

/** Whether the page has handlers that run as it is left, and could write state as they do. */
const HAS_LEAVE_HANDLERS = `(() => {
  const events = ['pagehide', 'unload', 'beforeunload', 'visibilitychange', 'freeze'];
  const has = (target) => events.some((type) => (getEventListeners(target)[type] || []).length > 0);
  return has(window) || has(document);
})()`;

/** One session start, so that a start given up (timed out) can still be ended when it completes. */
interface StartAttempt {
  abandoned: boolean;
  driver?: WebDriver;
}

/**
 * One warm browser: a WebDriver session, its DevTools connection to the page, and (locally) the
 * chromedriver process group behind them.
 */
export class BrowserSession {
  readonly id = nextId++;
  /** Renders served so far. */
  pages = 0;
  private dead = false;
  /** The page-load and script timeouts last given to WebDriver. */
  private pageLoadMs = -1;

  private constructor(
    readonly driver: WebDriver,
    readonly cdp: CdpSession,
    readonly mainFrameId: string,
    readonly mainWindow: string,
    private readonly process: DriverProcess | undefined,
    readonly gateway: EgressGateway,
    private readonly releasePorts: () => void,
  ) {}

  /**
   * Starts a session within `timeoutMs`: Selenium's CDP handshake never settles if the browser
   * dies half-way, so a start that overruns is abandoned and its process group killed.
   */
  static async create(options: SessionOptions, timeoutMs = options.startTimeoutMs ?? 30_000): Promise<BrowserSession> {
    const gateway = await EgressGateway.open(options.gatewayHost, options.ownPorts);
    let process: DriverProcess | undefined;
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the browser session did not start within ${timeoutMs} ms`)), timeoutMs);
    });
    const attempt: StartAttempt = { abandoned: false };
    try {
      process = options.remoteUrl ? undefined : await DriverProcess.start(options.chromedriverPath);
      const opening = BrowserSession.open(options, process, gateway, attempt);
      // On a Grid the start may still be queued at the hub: if it completes after all, nobody
      // holds it, so it is quit rather than left to run to the node's session timeout.
      opening.then(
        async (late) => {
          if (attempt.abandoned) await late.quit();
        },
        () => undefined,
      );
      return await Promise.race([opening, overrun]);
    } catch (err) {
      attempt.abandoned = true;
      if (attempt.driver && !process) void attempt.driver.quit().catch(() => undefined);
      process?.kill();
      await gateway.close();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private static async open(options: SessionOptions, process: DriverProcess | undefined, gateway: EgressGateway, attempt: StartAttempt): Promise<BrowserSession> {
    let driver: WebDriver | undefined;
    try {
      driver = await new Builder()
        .usingServer(options.remoteUrl ?? process!.url)
        .forBrowser(Browser.CHROME)
        .setChromeOptions(chromiumOptions(options.chromiumPath, gateway.url))
        .build();
      attempt.driver = driver;
      if (attempt.abandoned) throw new Error('the session started after its start was given up');
      const cdp = await CdpSession.attach(driver);
      await cdp.send('Network.enable', { maxTotalBufferSize: 64 * 1024 * 1024, maxResourceBufferSize: 16 * 1024 * 1024 });
      // Every request starts with an empty cache anyway (isolation), so none is kept at all
      // rather than cleared after each request.
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      // A target's file download would be written to this machine's disk: never.
      await cdp.send('Browser.setDownloadBehavior', { behavior: 'deny' });
      const tree = await cdp.send<{ frameTree: { frame: { id: string } } }>('Page.getFrameTree');
      const mainWindow = await driver.getWindowHandle();
      const releasePorts = await protectPorts(driver, process, options.ownPorts);
      return new BrowserSession(driver, cdp, tree.frameTree.frame.id, mainWindow, process, gateway, releasePorts);
    } catch (err) {
      if (driver && !process) await driver.quit().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Cuts page loads and scripts off after `ms`. A WebDriver round trip, so it is skipped when the
   * limit in force is already no longer than `ms` and within a second of it (consecutive requests
   * with the same timeout).
   */
  async limitPageLoad(ms: number): Promise<void> {
    if (this.pageLoadMs <= ms && ms - this.pageLoadMs < 1_000) return;
    await this.driver.manage().setTimeouts({ pageLoad: ms, script: ms });
    this.pageLoadMs = ms;
  }

  get alive(): boolean {
    return !this.dead && !this.cdp.isClosed && (this.process?.alive ?? true);
  }

  /**
   * Whether the session still answers a WebDriver command within `timeoutMs`. A Grid ends a
   * session it thinks idle (the node's session timeout) or loses it with its node, and nothing
   * tells this side until the next render fails.
   */
  async answers(timeoutMs: number): Promise<boolean> {
    if (!this.alive) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([this.driver.getWindowHandle().then(() => true, () => false), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** PSS of the driver and browser processes; undefined on a Grid, where they are not ours to read. */
  async memoryMb(): Promise<number | undefined> {
    return this.process?.memoryMb();
  }

  /**
   * Leaves nothing of the last request for the next: extra tabs closed, the page stopped,
   * cookies cleared, and every origin it touched wiped of local and session storage, IndexedDB,
   * service workers and cache storage. (No HTTP cache is kept at all.)
   *
   * The page is stopped by freezing it (no task of it runs again; the next request's navigation
   * discards it), which costs a quarter of navigating to about:blank. A page with handlers that
   * run as it is left (pagehide, unload…) is navigated away from instead, so that they run now,
   * before the wipe, rather than during the next request.
   */
  async reset(origins: Iterable<string>): Promise<void> {
    const handles = await this.driver.getAllWindowHandles();
    if (handles.length > 1) {
      for (const handle of handles) {
        if (handle === this.mainWindow) continue;
        await this.driver.switchTo().window(handle);
        await this.driver.close();
      }
      await this.driver.switchTo().window(this.mainWindow);
    }
    // Commands on one DevTools connection run in order: sent together, they cost one round trip.
    const [, , leave] = await Promise.all([
      this.cdp.send('Fetch.disable'),
      this.cdp.send('Page.disable'),
      this.cdp.send<{ result: { value?: boolean } }>('Runtime.evaluate', {
        expression: HAS_LEAVE_HANDLERS,
        includeCommandLineAPI: true,
        returnByValue: true,
      }),
    ]);
    if (leave.result.value === false) {
      await Promise.all([this.cdp.send('Page.stopLoading'), this.cdp.send('Page.setWebLifecycleState', { state: 'frozen' })]);
    } else {
      await this.driver.get('about:blank');
    }
    // Session storage lives with the tab: cleared for every origin the request touched. The
    // domain is on only for this, so renders do not stream storage events.
    await Promise.all([
      this.cdp.send('DOMStorage.enable'),
      ...[...origins].map((origin) =>
        this.cdp.send('DOMStorage.clear', { storageId: { securityOrigin: origin, isLocalStorage: false } }).catch(() => undefined),
      ),
      this.cdp.send('DOMStorage.disable'),
      this.cdp.send('Network.clearBrowserCookies'),
      ...[...origins].map((origin) => this.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
    ]);
  }

  /** A graceful end, falling back to killing the process group. */
  async quit(): Promise<void> {
    this.dead = true;
    this.cdp.close();
    await Promise.race([this.driver.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 5_000).unref())]);
    this.process?.kill();
    await this.closeGateway();
  }

  /** Immediate end for a hung or crashed session: the whole process group, no questions asked. */
  kill(): void {
    this.dead = true;
    this.cdp.close();
    if (this.process) this.process.kill();
    else void this.driver.quit().catch(() => undefined);
    void this.closeGateway();
  }

  private async closeGateway(): Promise<void> {
    this.releasePorts();
    await this.gateway.close().catch(() => undefined);
  }
}

/** The driver's and DevTools' ports join the ports no page may reach; returns their release. */
async function protectPorts(driver: WebDriver, process: DriverProcess | undefined, ownPorts: OwnPorts): Promise<() => void> {
  const ports: number[] = [];
  if (process) ports.push(Number(new URL(process.url).port));
  const chromeOptions = (await driver.getCapabilities()).get('goog:chromeOptions') as { debuggerAddress?: string } | undefined;
  const devtools = Number(/:(\d+)$/.exec(chromeOptions?.debuggerAddress ?? '')?.[1] ?? 0);
  if (devtools) ports.push(devtools);
  for (const port of ports) ownPorts.add(port);
  return () => ports.forEach((port) => ownPorts.delete(port));
}
