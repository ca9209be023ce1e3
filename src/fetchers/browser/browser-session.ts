import { Browser, Builder, type WebDriver } from 'selenium-webdriver';
import { CdpSession } from './cdp-session.js';
import { chromiumOptions } from './chromium-options.js';
import { DriverProcess } from './driver-process.js';

export interface SessionOptions {
  chromiumPath: string;
  chromedriverPath: string;
  /** A Selenium Grid URL; when unset each session gets a local chromedriver of its own. */
  remoteUrl: string | undefined;
}

let nextId = 1;

/**
 * One warm browser: a WebDriver session, its DevTools connection to the page, and (locally) the
 * chromedriver process group behind them.
 */
export class BrowserSession {
  readonly id = nextId++;
  /** Renders served so far. */
  pages = 0;
  private dead = false;

  private constructor(
    readonly driver: WebDriver,
    readonly cdp: CdpSession,
    readonly mainFrameId: string,
    readonly mainWindow: string,
    private readonly process: DriverProcess | undefined,
  ) {}

  static async create(options: SessionOptions): Promise<BrowserSession> {
    const process = options.remoteUrl ? undefined : await DriverProcess.start(options.chromedriverPath);
    let driver: WebDriver | undefined;
    try {
      driver = await new Builder()
        .usingServer(options.remoteUrl ?? process!.url)
        .forBrowser(Browser.CHROME)
        .setChromeOptions(chromiumOptions(options.chromiumPath))
        .build();
      const cdp = await CdpSession.attach(driver);
      await cdp.send('Network.enable', { maxTotalBufferSize: 64 * 1024 * 1024, maxResourceBufferSize: 16 * 1024 * 1024 });
      await cdp.send('DOMStorage.enable');
      // Without it, scripts added with Page.addScriptToEvaluateOnNewDocument never run.
      await cdp.send('Page.enable');
      const tree = await cdp.send<{ frameTree: { frame: { id: string } } }>('Page.getFrameTree');
      const mainWindow = await driver.getWindowHandle();
      return new BrowserSession(driver, cdp, tree.frameTree.frame.id, mainWindow, process);
    } catch (err) {
      process?.kill();
      if (driver && !process) await driver.quit().catch(() => undefined);
      throw err;
    }
  }

  get alive(): boolean {
    return !this.dead && !this.cdp.isClosed && (this.process?.alive ?? true);
  }

  /** PSS of the driver and browser processes; undefined on a Grid, where they are not ours to read. */
  async memoryMb(): Promise<number | undefined> {
    return this.process?.memoryMb();
  }

  /**
   * Leaves nothing of the last request for the next: extra tabs closed, the page blank, cookies
   * and cache cleared, and every origin it touched wiped of local and session storage,
   * IndexedDB, service workers and cache storage.
   */
  async reset(origins: Iterable<string>): Promise<void> {
    const handles = await this.driver.getAllWindowHandles();
    for (const handle of handles) {
      if (handle === this.mainWindow) continue;
      await this.driver.switchTo().window(handle);
      await this.driver.close();
    }
    await this.driver.switchTo().window(this.mainWindow);
    await this.cdp.send('Fetch.disable');
    const wipes: Array<Promise<unknown>> = [];
    for (const origin of origins) {
      wipes.push(this.cdp.send('DOMStorage.clear', { storageId: { securityOrigin: origin, isLocalStorage: false } }).catch(() => undefined));
      wipes.push(this.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' }));
    }
    await Promise.all(wipes);
    await this.driver.get('about:blank');
    await Promise.all([this.cdp.send('Network.clearBrowserCookies'), this.cdp.send('Network.clearBrowserCache')]);
  }

  /** A graceful end, falling back to killing the process group. */
  async quit(): Promise<void> {
    this.dead = true;
    this.cdp.close();
    await Promise.race([this.driver.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 5_000).unref())]);
    this.process?.kill();
  }

  /** Immediate end for a hung or crashed session: the whole process group, no questions asked. */
  kill(): void {
    this.dead = true;
    this.cdp.close();
    if (this.process) this.process.kill();
    else void this.driver.quit().catch(() => undefined);
  }
}
