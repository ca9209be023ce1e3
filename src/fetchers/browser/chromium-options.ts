import chrome from 'selenium-webdriver/chrome.js';
import { USER_AGENT } from '../user-agent.js';

/**
 * Chromium as a server-side renderer: headless, as root (no sandbox), no GPU, and none of the
 * background traffic (updates, sync, safe browsing) that a closed network refuses. All of its
 * traffic goes through the session's egress gateway (only raw baselines in benchmarks run without one): loopback too (`<-loopback>`; without it
 * Chrome silently bypasses any proxy for loopback, 169.254/16 and fe80::/10), no QUIC (UDP would
 * not pass the proxy), and WebRTC only over proxied UDP, i.e. not at all.
 */
export function chromiumOptions(binary: string | undefined, proxyServer?: string): chrome.Options {
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
    '--window-size=1366,768',
    `--user-agent=${USER_AGENT}`,
  );
  if (proxyServer) {
    options.addArguments(
      `--proxy-server=${proxyServer}`,
      '--proxy-bypass-list=<-loopback>',
      '--disable-quic',
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    );
  }
  options.setPageLoadStrategy('normal');
  return options;
}
