import { pause } from '../../retry-delays.js';
import { actionTime, type ActionPage } from './action-page.js';

/** How long after an action a navigation it started is looked for. */
const NAVIGATION_GRACE_MS = 100;

/**
 * Watches the main frame for a navigation an action starts (a click, a script), and waits for its
 * load when one did: `settled` looks a moment for one to start, and is true once one has loaded
 * (or the action's time is up).
 */
export function navigationWatch(page: ActionPage): { settled(): Promise<boolean>; stop(): void } {
  let started = false;
  let loaded!: () => void;
  const stopped = new Promise<void>((resolve) => (loaded = resolve));
  const offs = [
    page.cdp.on('Page.frameStartedLoading', (p) => {
      if (p.frameId === page.mainFrameId) started = true;
    }),
    page.cdp.on('Page.frameStoppedLoading', (p) => {
      if (p.frameId === page.mainFrameId && started) loaded();
    }),
  ];
  return {
    async settled() {
      if (!started) await pause(Math.min(NAVIGATION_GRACE_MS, Math.max(0, actionTime(page))), page.ends);
      if (!started) return false;
      const done = new AbortController();
      await Promise.race([stopped, pause(Math.max(1, actionTime(page)), AbortSignal.any([page.ends, done.signal]))]);
      done.abort();
      return true;
    },
    stop() {
      for (const off of offs) off();
    },
  };
}
