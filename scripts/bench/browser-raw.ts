// Raw warm Selenium sessions, driven directly (no scrapegate), as the browser bench's baselines:
// without isolation, clearing what DevTools can clear after each page, or in a browser context of
// their own per page (as thorough as scrapegate's reset: nothing else clears the HTTP
// authentication cache, HSTS, TLS sessions, sockets and permission decisions).
import { Browser, Builder, type WebDriver } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import { CdpSession } from '../../src/engines/browser/cdp-session.js';
import { chromiumOptions } from '../../src/engines/browser/chromium-options.js';

/** The browser scrapegate's server runs too (its `CHROMIUM_PATH`), so that both sides render alike. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMEDRIVER = '/usr/bin/chromedriver';

/** none: the page only; clear: then cookies, every storage type of every frame's origin, the cache; context: each page in a new context, disposed after it. */
export type Isolation = 'none' | 'clear' | 'context';

export const newDriver = (): Promise<WebDriver> =>
  new Builder().forBrowser(Browser.CHROME).setChromeOptions(chromiumOptions(CHROMIUM)).setChromeService(new chrome.ServiceBuilder(CHROMEDRIVER)).build();

/** WebDriver's get, and the DOM read with WebDriver's executeScript, as any Selenium user does. */
export async function renderPage(driver: WebDriver, url: string): Promise<void> {
  await driver.get(url);
  const html = String(await driver.executeScript('return document.documentElement.outerHTML'));
  if (!html.includes('item 199')) throw new Error('raw render incomplete');
}

interface FrameTree {
  frame: { securityOrigin: string };
  childFrames?: FrameTree[];
}

function origins(tree: FrameTree, into = new Set<string>()): Set<string> {
  if (/^https?:/.test(tree.frame.securityOrigin)) into.add(tree.frame.securityOrigin);
  for (const child of tree.childFrames ?? []) origins(child, into);
  return into;
}

export class RawSession {
  private constructor(
    readonly driver: WebDriver,
    private readonly cdp: CdpSession,
    /** The default context's window, where `none` and `clear` render. */
    private readonly home: string,
    private current: string,
  ) {}

  static async start(): Promise<RawSession> {
    const driver = await newDriver();
    const cdp = await CdpSession.attach(driver);
    const home = await driver.getWindowHandle();
    const { sessionId } = await cdp.sendToBrowser<{ sessionId: string }>('Target.attachToTarget', { targetId: home, flatten: true });
    await cdp.usePage(home, sessionId);
    return new RawSession(driver, cdp, home, home);
  }

  async render(url: string, isolation: Isolation): Promise<void> {
    if (isolation === 'context') return this.renderInContext(url);
    if (this.current !== this.home) {
      await this.driver.switchTo().window(this.home);
      this.current = this.home;
    }
    await renderPage(this.driver, url);
    if (isolation === 'clear') {
      const { frameTree } = await this.cdp.send<{ frameTree: FrameTree }>('Page.getFrameTree');
      await Promise.all([
        this.cdp.sendToBrowser('Storage.clearCookies', {}),
        ...[...origins(frameTree)].map((origin) => this.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
        this.cdp.send('Network.clearBrowserCache', {}),
      ]);
    }
  }

  private async renderInContext(url: string): Promise<void> {
    const { browserContextId } = await this.cdp.sendToBrowser<{ browserContextId: string }>('Target.createBrowserContext', {});
    try {
      const { targetId } = await this.cdp.sendToBrowser<{ targetId: string }>('Target.createTarget', { url: 'about:blank', browserContextId });
      await this.driver.switchTo().window(targetId);
      this.current = targetId;
      await renderPage(this.driver, url);
    } finally {
      await this.cdp.sendToBrowser('Target.disposeBrowserContext', { browserContextId });
    }
  }

  async quit(): Promise<void> {
    this.cdp.close();
    await this.driver.quit();
  }
}
