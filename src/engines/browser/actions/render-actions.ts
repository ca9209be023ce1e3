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
  const own = { contextId: session.contextId, targetId: session.mainFrameId };
  const offPopups = session.cdp.on('Target.targetCreated', (p) => {
    const info = p.targetInfo as PopupInfo | undefined;
    if (info && isOwnPopup(info, own)) session.cdp.sendToBrowser('Target.closeTarget', { targetId: info.targetId }).catch(() => undefined);
  });
  try {
    return await runActions(page, actions, session.id);
  } finally {
    offPopups();
  }
}

/** What Target.targetCreated says of a new target. */
export interface PopupInfo {
  targetId?: string;
  type?: string;
  browserContextId?: string;
}

/**
 * Whether a new target is a window this render's page opened: a page in the render's own browser
 * context (a `noopener` window too), other than its tab. The context is the render's alone, so
 * a target of another request's context (another tenant's tab, or its popups) is never matched.
 */
export function isOwnPopup(info: PopupInfo, own: { contextId: string; targetId: string }): info is PopupInfo & { targetId: string } {
  return info.type === 'page' && !!info.targetId && info.targetId !== own.targetId && !!info.browserContextId && info.browserContextId === own.contextId;
}

/**
 * An action led the window where it could not go (an address the target policy refuses, a dead
 * host): Chrome's error page is not the target's page, and is not answered (nor charged) as one.
 */
export function assertLanded(url: string): void {
  if (url.startsWith('chrome-error:')) throw new TargetUnreachableError('an action led the page to an address that could not be reached or that the target policy refuses');
}
