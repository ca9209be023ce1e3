import { Builder, logging, type WebDriver } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import { chromiumOptions } from '../../src/engines/browser/chromium-options.js';
import { locateChromedriver } from '../../src/engines/browser/driver-locator.js';

/**
 * A person's Chromium, for tests that open the service's own pages (docs, dashboard, answers
 * followed from a link): the service's flags, loopback reached directly, and nothing else.
 * Whatever a page asks from off the machine fails instead of leaving it: Chrome bypasses a proxy
 * for loopback, every other request goes to a closed loopback port, and no name but loopback
 * resolves. The performance log lists every request a page made.
 */
export function testBrowser(windowSize = '1400,1000'): Promise<WebDriver> {
  process.env.SE_OFFLINE ??= 'true';
  process.env.SE_AVOID_STATS ??= 'true';
  const options = chromiumOptions('/usr/bin/chromium');
  options.addArguments(`--window-size=${windowSize}`, '--proxy-server=http://127.0.0.1:9', '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1');
  const prefs = new logging.Preferences();
  prefs.setLevel(logging.Type.PERFORMANCE, logging.Level.ALL);
  options.setLoggingPrefs(prefs);
  return new Builder().forBrowser('chrome').setChromeOptions(options).setChromeService(new chrome.ServiceBuilder(locateChromedriver(undefined))).build();
}
