import { CdpError, type CdpSession } from './cdp-session.js';

export interface LoadOutcome {
  /** Why Chrome says the navigation failed (net::ERR_…): the page may be its error page, or none. */
  errorText: string | undefined;
  /** The frame was still loading when its time ran out: loading was stopped there. */
  timedOut: boolean;
}

/**
 * Navigates the tab's main frame through DevTools and waits until the frame stops loading: its
 * load event, after any navigation the page itself started meanwhile (a script or a meta refresh
 * moving it on), which is what WebDriver's `get` waits for with its normal strategy, without
 * chromedriver's round trips and its own checks of the page (about 30 ms a render). A frame still
 * loading after `timeoutMs` is stopped and answered with what it has. Needs the Page domain on.
 */
export async function loadPage(cdp: CdpSession, frameId: string, url: string, timeoutMs: number): Promise<LoadOutcome> {
  let started = false;
  let stop!: () => void;
  let lose!: (err: Error) => void;
  const stopped = new Promise<void>((resolve, reject) => {
    stop = resolve;
    lose = reject;
  });
  // Lost after the wait is over, nobody is left to hear it.
  stopped.catch(() => undefined);
  const offs = [
    cdp.on('Page.frameStartedLoading', (p) => {
      if (p.frameId === frameId) started = true;
    }),
    // Only a stop after a start of this navigation: the blank document's own load is long over.
    cdp.on('Page.frameStoppedLoading', (p) => {
      if (p.frameId === frameId && started) stop();
    }),
    cdp.whenLost(() => lose(new CdpError(`Page.navigate: the page was lost while it loaded (${cdp.pageEnded ?? 'connection closed'})`))),
  ];
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(1, timeoutMs));
  });
  try {
    const navigated = await Promise.race([cdp.send<{ errorText?: string }>('Page.navigate', { url }, timeoutMs + 1_000), outOfTime, stopped.then(() => 'stopped' as const)]);
    if (navigated === 'timeout') return cutOff();
    const errorText = typeof navigated === 'object' ? navigated.errorText : undefined;
    const end = await Promise.race([stopped.then(() => 'stopped' as const), outOfTime]);
    if (end === 'timeout') return { ...cutOff(), errorText };
    return { errorText, timedOut: false };
  } finally {
    clearTimeout(timer);
    for (const off of offs) off();
  }

  function cutOff(): LoadOutcome {
    cdp.post('Page.stopLoading', {});
    return { errorText: undefined, timedOut: true };
  }
}
