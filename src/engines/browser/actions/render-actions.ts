import { TargetUnreachableError } from '../../../egress/fetch-errors.js';
import type { Deadline } from '../../../time/deadline.js';
import type { BrowserSession } from '../browser-session.js';
import type { PageReader } from '../page-reader.js';
import { runActions } from './action-runner.js';
import type { ActionResults, BrowserAction } from './browser-action.js';

/** What a render lends its actions. */
export interface RenderForActions {
  session: BrowserSession;
  reader: PageReader;
  deadline: Deadline;
  ends: AbortSignal;
  maxBodyBytes: number;
}

/**
 * The request's actions on the render's own tab, reader and time. A click is a user's gesture, so
 * the page may open a window with it: every window the page opens meanwhile is closed as soon as
 * it appears (the document is the tab's, and a page that opens one per click must not fill the
 * browser with renderers).
 */
export async function renderActions(render: RenderForActions, actions: readonly BrowserAction[]): Promise<ActionResults> {
  const { session, reader, deadline, ends, maxBodyBytes } = render;
  const page = { cdp: session.cdp, mainFrameId: session.mainFrameId, reader, deadline, ends, maxBodyBytes, useWindow: (size: { width: number; height: number }) => session.useWindow(size) };
  const offPopups = session.cdp.on('Target.targetCreated', (p) => {
    const info = p.targetInfo as { targetId?: string; type?: string; openerId?: string } | undefined;
    if (info?.targetId && info.type === 'page' && info.openerId === session.mainFrameId) {
      session.cdp.sendToBrowser('Target.closeTarget', { targetId: info.targetId }).catch(() => undefined);
    }
  });
  try {
    return await runActions(page, actions, session.id);
  } finally {
    offPopups();
  }
}

/**
 * An action led the window where it could not go (an address the target policy refuses, a dead
 * host): Chrome's error page is not the target's page, and is not answered (nor charged) as one.
 */
export function assertLanded(url: string): void {
  if (url.startsWith('chrome-error:')) throw new TargetUnreachableError('an action led the page to an address that could not be reached or that the target policy refuses');
}
