import chrome from 'selenium-webdriver/chrome.js';
import { USER_AGENT } from '../user-agent.js';

/**
 * Chromium as a server-side renderer: headless, as root (no sandbox), no GPU, and none of the
 * background traffic (updates, sync, safe browsing) that a closed network refuses. Loopback
 * targets go through the configured proxy too (`<-loopback>`), so proxy tests can use them.
 */
export function chromiumOptions(binary: string | undefined): chrome.Options {
  const options = new chrome.Options();
  if (binary) options.setChromeBinaryPath(binary);
  options.addArguments(
    '--headless=new',
    '--no-sandbox',
    '--disable-dev-shm-usage',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-sync',
    '--disable-extensions',
    '--disable-default-apps',
    '--disable-breakpad',
    // No back-forward cache: a page left behind must die, not wait frozen in memory, and
    // leaving it then costs half as much.
    '--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,BackForwardCache,ProactivelySwapBrowsingInstance',
    '--mute-audio',
    '--no-default-browser-check',
    '--password-store=basic',
    '--proxy-bypass-list=<-loopback>',
    '--window-size=1366,768',
    `--user-agent=${USER_AGENT}`,
  );
  options.setPageLoadStrategy('normal');
  return options;
}
