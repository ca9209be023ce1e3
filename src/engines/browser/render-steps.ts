import diagnostics_channel from 'node:diagnostics_channel';

/**
 * How long each step of a render, of a session's reset and each DevTools command took, for a
 * profile of the browser engine (scripts/bench/browser-profile.ts). Published on a diagnostics
 * channel: with nobody subscribed, a step costs one property read.
 */
export interface RenderStep {
  /** `render.navigate`, `reset.open`, `cdp.Runtime.evaluate`, `webdriver.get`… */
  step: string;
  ms: number;
  /** The session's id; 0 where a step is not one session's. */
  session: number;
}

export const renderSteps = diagnostics_channel.channel('scrapegate:browser-step');

/** `work`, timed as `step` of `session` when anyone listens. */
export async function timed<T>(session: number, step: string, work: () => Promise<T>): Promise<T> {
  if (!renderSteps.hasSubscribers) return work();
  const started = performance.now();
  try {
    return await work();
  } finally {
    renderSteps.publish({ step, ms: performance.now() - started, session } satisfies RenderStep);
  }
}
