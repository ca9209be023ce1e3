import type { WebDriver } from 'selenium-webdriver';
import { GATEWAY_PRIME_HOST, type EgressGateway } from '../../egress/egress-gateway.js';
import type { CdpSession } from './cdp-session.js';
import { timed } from './render-steps.js';

/** How often a new tab asks the gateway's host before its start is given up. */
const PRIME_ATTEMPTS = 3;

/**
 * The one tab a session renders a request in, alone in a browser context of its own. Everything a
 * page can leave behind is kept per context and goes with it when the context is disposed:
 * cookies, every kind of storage, caches, service workers, the HTTP authentication cache, HSTS and
 * the rest of the network state (sockets, TLS sessions, client-certificate choices), permission
 * decisions, popups and their windows. Chromium offers no DevTools command that clears the HTTP
 * authentication cache or a page's permission decisions in a context that lives on: only a
 * context's end does.
 */
export interface BrowserTab {
  contextId: string;
  /** The page target: also chromedriver's window handle, and the main frame's id. */
  targetId: string;
}

/**
 * Opens a tab in a new context, proxied through the session's gateway (which it proves itself to,
 * once per context), with downloads denied and the HTTP cache off, and makes it the page of the
 * DevTools connection and WebDriver's current window.
 */
export async function openTab(driver: WebDriver, cdp: CdpSession, gateway: EgressGateway, session = 0): Promise<BrowserTab> {
  // Every context names the gateway itself, rather than trusting one to inherit the flag.
  const { browserContextId } = await cdp.sendToBrowser<{ browserContextId: string }>('Target.createBrowserContext', {
    proxyServer: gateway.url,
    proxyBypassList: '<-loopback>',
  });
  try {
    const { targetId } = await cdp.sendToBrowser<{ targetId: string }>('Target.createTarget', { url: 'about:blank', browserContextId });
    const { sessionId } = await cdp.sendToBrowser<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    // Commands on one DevTools connection run in order: sent together, they cost one round trip.
    await Promise.all([
      cdp.usePage(targetId, sessionId),
      cdp.send('Network.enable', { maxTotalBufferSize: 64 * 1024 * 1024, maxResourceBufferSize: 16 * 1024 * 1024 }),
      // Navigation, its commits and the page's dialogs are followed through its events (page-load.ts).
      cdp.send('Page.enable'),
      // Each request starts with an empty cache anyway (a new context), so none is kept at all.
      cdp.send('Network.setCacheDisabled', { cacheDisabled: true }),
      // A target's file download would be written to this machine's disk: never.
      cdp.sendToBrowser('Browser.setDownloadBehavior', { behavior: 'deny', browserContextId }),
    ]);
    await timed(session, 'tab.switchWindow', () => driver.switchTo().window(targetId));
    await timed(session, 'tab.credentials', () => teachCredentials(cdp, gateway));
    return { contextId: browserContextId, targetId };
  } catch (err) {
    await closeTab(cdp, { contextId: browserContextId, targetId: '' }).catch(() => undefined);
    throw err;
  }
}

/**
 * Ends a tab's context, and with it every page, frame, popup and worker in it and all they left
 * behind. A page with handlers that run as it is left (pagehide, unload) gets Chromium's own short
 * grace for them; one that spins is killed with its renderer.
 */
export async function closeTab(cdp: CdpSession, tab: BrowserTab): Promise<void> {
  await cdp.sendToBrowser('Target.disposeBrowserContext', { browserContextId: tab.contextId });
}

/**
 * The gateway answers only its own Chromium, which proves itself with the gateway's secret
 * credentials. Chrome has no flag for proxy credentials: each context is asked for them once,
 * here, through DevTools (a request to the gateway's own host from the blank page, challenged and
 * answered), and from then on sends them with every request and tunnel, preemptively.
 * Interception is off again afterwards. A fetch rather than a navigation: no renderer is started
 * for the gateway's host.
 */
export async function teachCredentials(cdp: CdpSession, gateway: EgressGateway): Promise<void> {
  const offPaused = cdp.on('Fetch.requestPaused', (p) => cdp.post('Fetch.continueRequest', { requestId: p.requestId }));
  const offAuth = cdp.on('Fetch.authRequired', (p) => {
    const challenge = p.authChallenge as { source?: string } | undefined;
    const response = challenge?.source === 'Proxy' ? { response: 'ProvideCredentials', ...gateway.credentials } : { response: 'CancelAuth' };
    cdp.post('Fetch.continueWithAuth', { requestId: p.requestId, authChallengeResponse: response });
  });
  try {
    await cdp.send('Fetch.enable', { patterns: [{ urlPattern: `http://${GATEWAY_PRIME_HOST}/*` }], handleAuthRequests: true });
    // A new tab's blank document may still be replaced by its own committing, which aborts a
    // fetch it started: asked again, a few times.
    let failure: unknown;
    for (let attempt = 0; attempt < PRIME_ATTEMPTS; attempt++) {
      const taught = await cdp.send<{ result: { value?: unknown } }>('Runtime.evaluate', {
        expression: `fetch('http://${GATEWAY_PRIME_HOST}/', { mode: 'no-cors', cache: 'no-store' }).then(() => true, (e) => String(e))`,
        awaitPromise: true,
        returnByValue: true,
      });
      if (taught.result.value === true) return;
      failure = taught.result.value;
    }
    throw new Error(`the browser could not prove itself to its egress gateway: ${String(failure)}`);
  } finally {
    offPaused();
    offAuth();
    await cdp.send('Fetch.disable');
  }
}
