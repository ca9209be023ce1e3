import chrome from 'selenium-webdriver/chrome.js';
import { UNSAFE_PORTS } from '../../egress/target-policy/unsafe-ports.js';
import { USER_AGENT } from '../user-agent.js';
import { GATEWAY_PRIME_HOST } from '../../egress/egress-gateway.js';

/**
 * Chromium as a server-side renderer: headless, as root (no sandbox), no GPU, and none of the
 * background traffic (updates, sync, safe browsing) that a closed network refuses. All of its
 * traffic goes through the session's egress gateway (only raw baselines in benchmarks run without one): loopback too (`<-loopback>`; without it
 * Chrome silently bypasses any proxy for loopback, 169.254/16 and fe80::/10), no QUIC (UDP would
 * not pass the proxy), and WebRTC only over proxied UDP, i.e. not at all.
 */
export function chromiumOptions(binary: string | undefined, proxyServer?: string, devtoolsPort?: number): chrome.Options {
  const options = new chrome.Options();
  // chromedriver turns Chrome's popup blocker off; a page must not open windows without a click.
  options.excludeSwitches('disable-popup-blocking');
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
    // leaving it then costs half as much. No WebUI omnibox popups: each window (one per request,
    // see browser-tab.ts) would start two renderers for them. No spare renderer: Chromium starts
    // one ahead for each new context, and the context's first navigation reuses its blank tab's
    // renderer instead, so every spare was started and killed unused (about 25 ms of CPU a render).
    '--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,BackForwardCache,ProactivelySwapBrowsingInstance,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess',
    '--mute-audio',
    '--no-default-browser-check',
    '--password-store=basic',
    '--window-size=1366,768',
    `--user-agent=${USER_AGENT}`,
  );
  // A port chosen (and protected) by scrapegate before Chrome listens on it, not one Chrome picks.
  if (devtoolsPort !== undefined) options.addArguments(`--remote-debugging-port=${devtoolsPort}`);
  if (proxyServer) {
    options.addArguments(
      `--proxy-server=${proxyServer}`,
      // The target policy refuses these ports for both engines, except where TARGET_ALLOW_CIDRS
      // allows the host: Chrome defers to it rather than refusing them on its own.
      `--explicitly-allowed-ports=${[...UNSAFE_PORTS].filter((p) => p > 0).join(',')}`,
      '--proxy-bypass-list=<-loopback>',
      // Chrome lists the Google accounts in its cookie jar whenever the jar changes (each reset
      // clears it): asked of the gateway itself, which answers without going anywhere.
      `--gaia-url=http://${GATEWAY_PRIME_HOST}`,
      '--disable-quic',
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    );
  }
  options.setPageLoadStrategy('normal');
  return options;
}
