import { Browser, Builder, type WebDriver } from 'selenium-webdriver';
import type { OwnPorts } from '../../egress/target-policy/own-ports.js';
import { EgressGateway } from '../../egress/egress-gateway.js';
import { closeTab, openTab, teachCredentials, type BrowserTab } from './browser-tab.js';
import { CdpSession } from './cdp-session.js';
import { chromiumOptions } from './chromium-options.js';
import { DriverProcess, freePort } from './driver-process.js';
import { race, within } from '../../time/deadline-race.js';
import { timed } from './render-steps.js';

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

/** One session start, so that a start given up (timed out) can still be ended when it completes. */
interface StartAttempt {
  abandoned: boolean;
  driver?: WebDriver;
}

/**
 * One warm browser: a WebDriver session, its DevTools connection, the tab (in a browser context of
 * its own) that the next request renders in, and (locally) the chromedriver process group behind
 * them.
 */
export class BrowserSession {
  readonly id = nextId++;
  /** Renders served so far. */
  pages = 0;
  private dead = false;
  /** The window size a screenshot set (undefined: the session's own). */
  private window: { width: number; height: number } | undefined;

  private constructor(
    readonly driver: WebDriver,
    readonly cdp: CdpSession,
    private tab: BrowserTab,
    private readonly process: DriverProcess | undefined,
    readonly gateway: EgressGateway,
    private readonly releasePorts: () => void,
  ) {}

  /** The tab's main frame (its target id). */
  get mainFrameId(): string {
    return this.tab.targetId;
  }

  /** The browser context the tab is in: this request's alone, disposed after it. */
  get contextId(): string {
    return this.tab.contextId;
  }

  /** The tab's WebDriver window handle (its target id). */
  get mainWindow(): string {
    return this.tab.targetId;
  }

  /**
   * Starts a session within `timeoutMs`: Selenium's CDP handshake never settles if the browser
   * dies half-way, so a start that overruns is abandoned and its process group killed.
   */
  static async create(options: SessionOptions, timeoutMs = options.startTimeoutMs ?? 30_000): Promise<BrowserSession> {
    const gateway = await EgressGateway.open(options.gatewayHost, options.ownPorts);
    // A local session's driver and DevTools ports are scrapegate's own before anything listens on
    // them: a page rendering in another session meanwhile must never reach a browser starting up.
    const ports = options.remoteUrl ? [] : [await freePort(), await freePort()];
    for (const port of ports) options.ownPorts.add(port);
    const releasePorts = () => ports.splice(0).forEach((port) => options.ownPorts.delete(port));
    let process: DriverProcess | undefined;
    const attempt: StartAttempt = { abandoned: false };
    const starting = (async () => {
      process = options.remoteUrl ? undefined : await DriverProcess.start(options.chromedriverPath, ports[0]);
      const opening = BrowserSession.open(options, process, gateway, attempt, ports[1], releasePorts);
      // On a Grid the start may still be queued at the hub: if it completes after all, nobody
      // holds it, so it is quit rather than left to run to the node's session timeout.
      opening.then(
        async (late) => {
          if (attempt.abandoned) await late.quit();
        },
        () => undefined,
      );
      return opening;
    })();
    try {
      return await race(starting, [within(timeoutMs, () => new Error(`the browser session did not start within ${timeoutMs} ms`))]);
    } catch (err) {
      attempt.abandoned = true;
      if (attempt.driver && !process) void attempt.driver.quit().catch(() => undefined);
      process?.kill();
      releasePorts();
      await gateway.close();
      throw err;
    }
  }

  private static async open(
    options: SessionOptions,
    process: DriverProcess | undefined,
    gateway: EgressGateway,
    attempt: StartAttempt,
    devtoolsPort: number | undefined,
    releasePorts: () => void,
  ): Promise<BrowserSession> {
    let driver: WebDriver | undefined;
    try {
      driver = await new Builder()
        .usingServer(options.remoteUrl ?? process!.url)
        .forBrowser(Browser.CHROME)
        .setChromeOptions(chromiumOptions(options.chromiumPath, gateway.url, devtoolsPort))
        .build();
      attempt.driver = driver;
      if (attempt.abandoned) throw new Error('the session started after its start was given up');
      const cdp = await CdpSession.attach(driver);
      const first = await driver.getWindowHandle();
      // Nothing renders in the default context: its own first window is closed once a tab is open.
      // It is taught the gateway's credentials all the same (a window WebDriver opens lands there)
      // and denied downloads.
      await cdp.sendToBrowser('Browser.setDownloadBehavior', { behavior: 'deny' });
      await teachCredentials(cdp, gateway);
      const tab = await openTab(driver, cdp, gateway);
      await cdp.sendToBrowser('Target.closeTarget', { targetId: first });
      return new BrowserSession(driver, cdp, tab, process, gateway, releasePorts);
    } catch (err) {
      if (driver && !process) await driver.quit().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Lays pages out in a window of `size` (a screenshot's), or the session's own (undefined), from
   * the next navigation on. A DevTools round trip only when it changes: consecutive screenshots
   * of one size pay nothing, and a render after a screenshot gets the session's own window back
   * before it navigates.
   */
  async useWindow(size: { width: number; height: number } | undefined): Promise<void> {
    const current = this.window;
    if (current?.width === size?.width && current?.height === size?.height) return;
    this.window = undefined;
    if (size) await this.cdp.send('Emulation.setDeviceMetricsOverride', { ...size, deviceScaleFactor: 1, mobile: false });
    else await this.cdp.send('Emulation.clearDeviceMetricsOverride', {});
    this.window = size;
  }

  /** The local process group (chromedriver, Chromium and its children); undefined on a Grid. */
  get processGroup(): number | undefined {
    return this.process?.pid;
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
    const answered = this.driver.getWindowHandle().then(() => true, () => false);
    return race(answered, [within(timeoutMs, () => new Error('no answer'))]).catch(() => false);
  }

  /** PSS of the driver and browser processes; undefined on a Grid, where they are not ours to read. */
  async memoryMb(): Promise<number | undefined> {
    return this.process?.memoryMb();
  }

  /**
   * Leaves nothing of the last request for the next: its tab's browser context is disposed with
   * everything in it, and a tab in a new one is opened for the next request (both at once). Any
   * other window (one that WebDriver itself opened) is closed as well.
   */
  async reset(): Promise<void> {
    const old = this.tab;
    this.window = undefined;
    const step = <T>(name: string, work: () => Promise<T>) => timed(this.id, `reset.${name}`, work);
    const [tab] = await Promise.all([step('open', () => openTab(this.driver, this.cdp, this.gateway, this.id)), step('close', () => closeTab(this.cdp, old))]);
    this.tab = tab;
    const strays = (await step('handles', () => this.driver.getAllWindowHandles())).filter((handle) => handle !== tab.targetId);
    if (strays.length > 0) await closeTargets(this.cdp, strays);
  }

  /** A graceful end, falling back to killing the process group. */
  async quit(): Promise<void> {
    this.dead = true;
    this.cdp.close();
    await race(this.driver.quit(), [within(5_000, () => new Error('the driver did not quit'))]).catch(() => undefined);
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

/** How long a closed tab may take to be gone before the reset fails (and the pool retires the session). */
const TAB_GONE_MS = 5_000;

/**
 * Closes tabs and resolves once each is destroyed: `Target.closeTarget` only begins the close,
 * and on a busy machine the tab was seen still listed, its scripts still running, after the
 * reset had returned.
 */
async function closeTargets(cdp: CdpSession, targetIds: string[]): Promise<void> {
  const left = new Set(targetIds);
  let allGone!: () => void;
  const gone = new Promise<void>((resolve) => (allGone = resolve));
  const off = cdp.on('Target.targetDestroyed', (params) => {
    left.delete(String(params.targetId));
    if (left.size === 0) allGone();
  });
  try {
    await Promise.all(targetIds.map((targetId) => cdp.sendToBrowser('Target.closeTarget', { targetId })));
    await race(gone, [within(TAB_GONE_MS, () => new Error(`${left.size} closed tab(s) still there after ${TAB_GONE_MS} ms`))]);
  } finally {
    off();
  }
}
