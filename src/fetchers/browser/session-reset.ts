import type { WebDriver } from 'selenium-webdriver';
import type { CdpSession } from './cdp-session.js';
import { partitionedKeys, siteOf } from './storage-keys.js';

/** What one render touched: every origin it reached, and the sites its main frame showed. */
export interface StorageScope {
  origins: Iterable<string>;
  topSites: Iterable<string>;
}

/** The tab a session renders in. */
export interface SessionTab {
  driver: WebDriver;
  cdp: CdpSession;
  mainWindow: string;
  mainFrameId: string;
}

/** More windows than this at a reset: a page that got past the popup blocker; the session is retired, not cleaned. */
const MAX_WINDOWS = 8;

/** Wipes after which cookies still arrive: the session is retired rather than wiped again. */
const MAX_WIPES = 3;

/** How long a freeze may take to reach the page before it is navigated away from instead. */
const FREEZE_WAIT_MS = 1_000;

/** Whether the page has handlers that run as it is left, and could write state as they do. */
const HAS_LEAVE_HANDLERS = `(() => {
  const events = ['pagehide', 'unload', 'beforeunload', 'visibilitychange', 'freeze'];
  const has = (target) => events.some((type) => (getEventListeners(target)[type] || []).length > 0);
  return has(window) || has(document);
})()`;

/** Set up in an isolated world before a freeze: a promise of the page's 'freeze' event. */
const FREEZE_LISTENER = `globalThis.scrapegateFrozen = new Promise((resolve) => {
  document.addEventListener('freeze', () => resolve(true), { once: true, capture: true });
}); true`;

/**
 * Leaves nothing of the last request for the next: extra tabs closed, the page stopped, cookies
 * cleared, and every origin it touched wiped of local and session storage, IndexedDB, service
 * workers and cache storage — its own (first-party) storage, and what it wrote as a frame
 * embedded under another site (partitioned storage). No HTTP cache is kept at all.
 *
 * The page is stopped by freezing it (no task of it runs again; the next request's navigation
 * discards it), which costs a quarter of navigating to about:blank. A page with handlers that run
 * as it is left (pagehide, unload…) is then navigated away from as well, so that they run now,
 * before the wipe, rather than during the next request.
 *
 * A page's writes travel to the browser on channels of their own, unordered with DevTools': a
 * page writing as fast as it can has writes still on the way when it stops, which would land
 * after a wipe. So the wipe waits for them (the frozen page's frames each read their cookies, a
 * round trip behind every write they sent), clears storage through the page's own channel as
 * well, and looks again: cookies that still arrive are wiped again, and a session that keeps
 * receiving them is retired. Nothing here is bounded in time: the pool gives a reset a deadline,
 * and a session that misses it is killed.
 */
export async function resetTab(tab: SessionTab, touched: StorageScope): Promise<void> {
  const { driver, cdp } = tab;
  const handles = await driver.getAllWindowHandles();
  if (handles.length > MAX_WINDOWS) throw new Error(`the page left ${handles.length} windows open`);
  const origins = new Set(touched.origins);
  const topSites = new Set(touched.topSites);
  await addLiveTargets(cdp, handles, origins, topSites);
  if (handles.length > 1) {
    for (const handle of handles) {
      if (handle === tab.mainWindow) continue;
      await driver.switchTo().window(handle);
      await driver.close();
    }
    await driver.switchTo().window(tab.mainWindow);
  }
  // Commands on one DevTools connection run in order: sent together, they cost one round trip.
  const [, world, , leave] = await Promise.all([
    cdp.send('Fetch.disable'),
    cdp.send<{ executionContextId: number }>('Page.createIsolatedWorld', { frameId: tab.mainFrameId, worldName: 'scrapegate-reset' }),
    cdp.send('Page.disable'),
    cdp.send<{ result: { value?: boolean } }>('Runtime.evaluate', {
      expression: HAS_LEAVE_HANDLERS,
      includeCommandLineAPI: true,
      returnByValue: true,
    }),
  ]);
  if (await freeze(cdp, world.executionContextId)) {
    await awaitWrites(cdp, world.executionContextId);
    if (leave.result.value !== false) await driver.get('about:blank');
  } else {
    await driver.get('about:blank');
  }
  cdp.forgetFrames();
  for (let wipes = 0; ; wipes++) {
    if (wipes === MAX_WIPES) throw new Error(`cookies still arrived after ${MAX_WIPES} wipes`);
    await wipe(cdp, origins, partitionedKeys(origins, topSites));
    const left = await cdp.send<{ cookies: unknown[] }>('Network.getAllCookies');
    if (left.cookies.length === 0) return;
  }
}

/**
 * Freezes the page and waits until it is frozen. DevTools answers the freeze at once and the page
 * learns of it later: until then it runs on. The page's own 'freeze' event, heard from an isolated
 * world, says it took hold (a page cannot stop listeners of another world from hearing it, short
 * of stopping the event on window, and then it is navigated away from instead: false).
 */
async function freeze(cdp: CdpSession, contextId: number): Promise<boolean> {
  const evaluate = (expression: string, awaitPromise: boolean, timeoutMs?: number) =>
    cdp.send<{ result: { value?: unknown } }>('Runtime.evaluate', { expression, contextId, awaitPromise, returnByValue: true }, timeoutMs);
  await evaluate(FREEZE_LISTENER, false);
  const frozen = evaluate('globalThis.scrapegateFrozen', true, FREEZE_WAIT_MS).then((r) => r.result.value === true, () => false);
  await Promise.all([cdp.send('Page.stopLoading'), cdp.send('Page.setWebLifecycleState', { state: 'frozen' })]);
  return frozen;
}

/**
 * Reading `document.cookie` is a synchronous round trip on the channel the frame's writes took,
 * so once it answers, every write the frame sent before has landed. Done in the main frame and in
 * each out-of-process frame (a renderer of its own); a frame that cannot answer is left to the
 * checks after the wipe.
 */
async function awaitWrites(cdp: CdpSession, mainWorld: number): Promise<void> {
  const read = (session: string | undefined, contextId: number) =>
    cdp.sendTo(session, 'Runtime.evaluate', { expression: 'void document.cookie', contextId, returnByValue: true });
  const frames = cdp.frameTargets().map(async (frameId) => {
    const session = cdp.frameSession(frameId);
    const world = await cdp.sendTo<{ executionContextId: number }>(session, 'Page.createIsolatedWorld', { frameId, worldName: 'scrapegate-reset' });
    await read(session, world.executionContextId);
  });
  await Promise.all([read(undefined, mainWorld), ...frames.map((f) => f.catch(() => undefined))]);
}

async function wipe(cdp: CdpSession, origins: Set<string>, keys: string[]): Promise<void> {
  const quiet = <T>(p: Promise<T>) => p.catch(() => undefined);
  // Through the page (where a frame of the origin is still there), storage is cleared on the
  // channel its writes took, behind them; through the browser, for every origin and key. The
  // domain is on only for this, so renders do not stream storage events.
  await Promise.all([
    cdp.send('DOMStorage.enable'),
    ...[false, true].flatMap((isLocalStorage) => [
      ...[...origins].map((origin) => quiet(cdp.send('DOMStorage.clear', { storageId: { securityOrigin: origin, isLocalStorage } }))),
      ...keys.map((storageKey) => quiet(cdp.send('DOMStorage.clear', { storageId: { storageKey, isLocalStorage } }))),
    ]),
    cdp.send('DOMStorage.disable'),
    cdp.send('Network.clearBrowserCookies'),
    ...[...origins].map((origin) => cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
    ...keys.map((storageKey) => cdp.send('Storage.clearDataForStorageKey', { storageKey, storageTypes: 'all' })),
  ]);
}

/**
 * Windows and out-of-process frames still alive (a popup, an iframe): their origins, and the
 * sites of windows, join the wipe. Looked up one by one: chromedriver's window handles are
 * DevTools target ids. (Never Target.getTargets: Selenium's socket listener answers any list of
 * targets by attaching to the page again, and moves its connection to a new session.)
 */
async function addLiveTargets(cdp: CdpSession, windows: string[], origins: Set<string>, topSites: Set<string>): Promise<void> {
  const ids = [...windows.map((id) => ({ id, page: true })), ...cdp.frameTargets().map((id) => ({ id, page: false }))];
  const infos = await Promise.all(
    ids.map(({ id }) => cdp.send<{ targetInfo: { url: string } }>('Target.getTargetInfo', { targetId: id }).catch(() => undefined)),
  );
  infos.forEach((info, i) => {
    const url = info?.targetInfo.url ?? '';
    if (!/^https?:/.test(url)) return;
    const { origin } = new URL(url);
    origins.add(origin);
    const site = ids[i].page ? siteOf(origin) : undefined;
    if (site) topSites.add(site);
  });
}
