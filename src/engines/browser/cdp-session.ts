import type { WebDriver } from 'selenium-webdriver';
import { renderSteps, type RenderStep } from './render-steps.js';

/** What selenium-webdriver's CDP connection is at run time (its typings stop at `Promise<any>`). */
interface SeleniumCdpConnection {
  sessionId: string | null;
  _wsConnection: {
    send(data: string): void;
    on(event: 'message', listener: (data: Buffer | string) => void): void;
    on(event: 'close', listener: () => void): void;
    close(): void;
  };
}

export type CdpEventHandler = (params: Record<string, unknown>) => void;

export class CdpError extends Error {}

interface Pending {
  method: string;
  /** undefined: the browser's. */
  sessionId: string | undefined;
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
  sessionId?: string;
}

/** No DevTools command may hang a caller for longer than this (a renderer that spins never answers). */
const COMMAND_TIMEOUT_MS = 30_000;
/** Above Selenium's own command ids, so the two senders on one socket never share an id. */
const FIRST_ID = 1_000_000_000;
const AUTO_ATTACH = { autoAttach: true, waitForDebuggerOnStart: false, flatten: true };

/**
 * Chrome DevTools Protocol over Selenium's own connection to the browser (browser-level, local
 * chromedriver or Grid alike), with one page target as its page (`usePage`). Commands are sent and
 * matched here (Selenium's sender adds a socket listener per command and has no way to address
 * another target); events are read from the same socket, in the one place that knows its private
 * name, and only the page's (and the browser's own) are handed on. Out-of-process iframes attach
 * to the page automatically (flattened), and `sendTo` reaches them.
 */
export class CdpSession {
  private readonly handlers = new Map<string, Set<CdpEventHandler>>();
  private readonly pending = new Map<number, Pending>();
  /** frame id → DevTools session of an out-of-process iframe, at any depth. */
  private readonly frameSessions = new Map<string, string>();
  private nextId = FIRST_ID;
  private closed = false;
  /** The page's session: ours to choose (Selenium moves its own connection's field as it likes). */
  private pageSession: string | undefined;
  private pageTarget: string | undefined;
  /** How the page's renderer ended, when it did (Target.targetCrashed's status: 'crashed', 'killed', 'oom'…). */
  private pageEnd: string | undefined;
  /** Told when the page can no longer answer: its renderer ended, or the connection closed. */
  private readonly lostListeners = new Set<() => void>();

  private constructor(private readonly connection: SeleniumCdpConnection) {
    this.pageSession = connection.sessionId ?? undefined;
    connection._wsConnection.on('message', (data) => this.dispatch(data));
    connection._wsConnection.on('close', () => this.closeAll());
  }

  /**
   * Out-of-process iframes attach on their own (Target.setAutoAttach, flattened), and so do
   * theirs: each attached iframe is asked to auto-attach its children in turn.
   */
  private onTargetEvent(message: CdpMessage): void {
    const p = message.params ?? {};
    if (message.method === 'Target.attachedToTarget') {
      const info = p.targetInfo as { type?: string; targetId?: string } | undefined;
      if (info?.type !== 'iframe' || !info.targetId) return;
      // Only the page's own frames: a page left behind may still report its own for a moment.
      const parent = message.sessionId;
      if (parent !== this.pageSession && ![...this.frameSessions.values()].includes(parent ?? '')) return;
      const child = String(p.sessionId);
      this.frameSessions.set(info.targetId, child);
      this.sendTo(child, 'Target.setAutoAttach', AUTO_ATTACH).catch(() => undefined);
    } else if (message.method === 'Target.detachedFromTarget') {
      for (const [frame, session] of this.frameSessions) if (session === p.sessionId) this.frameSessions.delete(frame);
    }
  }

  /**
   * A browser-level connection: browser contexts are made and disposed through it. Page targets
   * are reported to it (Target.setDiscoverTargets), so that a renderer's end is heard with its
   * cause (Target.targetCrashed).
   */
  static async attach(driver: WebDriver): Promise<CdpSession> {
    const connection = (await driver.createCDPConnection('browser')) as SeleniumCdpConnection;
    const session = new CdpSession(connection);
    await session.sendToBrowser('Target.setDiscoverTargets', { discover: true, filter: [{ type: 'page' }] });
    return session;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * From now on `sessionId` (attached, flattened, to `targetId`) is the page: commands without a
   * session go to it, and only its events are handed on. The last page's iframes go with it.
   */
  async usePage(targetId: string, sessionId: string): Promise<void> {
    this.pageTarget = targetId;
    this.pageSession = sessionId;
    this.pageEnd = undefined;
    this.frameSessions.clear();
    await this.send('Target.setAutoAttach', AUTO_ATTACH);
  }

  /**
   * Calls `listener` once the page can no longer answer (its renderer ended, or the connection
   * closed), for waits on its events rather than on a command; returns the way to stop listening.
   */
  whenLost(listener: () => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** How the page's renderer ended ('crashed', 'killed', 'oom'…), or undefined while it lives. */
  get pageEnded(): string | undefined {
    return this.pageEnd;
  }

  /** A command to the page target. */
  send<T = Record<string, unknown>>(method: string, params: object = {}, timeoutMs = COMMAND_TIMEOUT_MS): Promise<T> {
    return this.sendTo(undefined, method, params, timeoutMs);
  }

  /** A command to the browser itself (Target, Browser). */
  sendToBrowser<T = Record<string, unknown>>(method: string, params: object = {}, timeoutMs = COMMAND_TIMEOUT_MS): Promise<T> {
    return this.transmit(undefined, method, params, timeoutMs);
  }

  /** The DevTools session of an out-of-process iframe, when `frameId` is one. */
  frameSession(frameId: string): string | undefined {
    return this.frameSessions.get(frameId);
  }

  /** The target ids of the out-of-process iframes attached now. */
  frameTargets(): string[] {
    return [...this.frameSessions.keys()];
  }

  /** The page was left: its iframes' sessions end with it. */
  forgetFrames(): void {
    this.frameSessions.clear();
  }

  /** A command to one session: an iframe's from `frameSession`, or the page's when undefined. */
  sendTo<T = Record<string, unknown>>(frameSessionId: string | undefined, method: string, params: object = {}, timeoutMs = COMMAND_TIMEOUT_MS): Promise<T> {
    // A crashed renderer never answers: its commands fail at once rather than at their timeout.
    if (this.pageEnd) return Promise.reject(new CdpError(`${method}: the page's renderer ended (${this.pageEnd})`));
    return this.transmit(frameSessionId ?? this.pageSession, method, params, timeoutMs);
  }

  private transmit<T>(sessionId: string | undefined, method: string, params: object, timeoutMs: number): Promise<T> {
    if (this.closed) return Promise.reject(new CdpError(`${method}: the DevTools connection is closed`));
    const id = this.nextId++;
    const sent = renderSteps.hasSubscribers ? performance.now() : undefined;
    const answered = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new CdpError(`${method}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { method, sessionId, resolve: (r) => resolve(r as T), reject, timer });
      try {
        this.connection._wsConnection.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new CdpError(`${method}: ${(err as Error).message}`));
      }
    });
    if (sent === undefined) return answered;
    const took = () => renderSteps.publish({ step: `cdp.${method}`, ms: performance.now() - sent, session: 0 } satisfies RenderStep);
    answered.then(took, took);
    return answered;
  }

  /** Fire-and-forget, for answers to paused requests that must not hold up the event loop. */
  post(method: string, params: object): void {
    this.send(method, params).catch(() => {
      // The request may be gone already (navigation cancelled, page closed): nothing to do.
    });
  }

  on(event: string, handler: CdpEventHandler): () => void {
    let set = this.handlers.get(event);
    if (!set) this.handlers.set(event, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  close(): void {
    this.closeAll();
    try {
      this.connection._wsConnection.close();
    } catch {
      // already closed
    }
  }

  /** The page's renderer is gone: what waits on it or its frames fails now. */
  private onPageEnd(status: string): void {
    this.pageEnd = status;
    for (const [id, p] of this.pending) {
      if (p.sessionId === undefined) continue;
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new CdpError(`${p.method}: the page's renderer ended (${status})`));
    }
    this.tellLost();
  }

  private tellLost(): void {
    for (const listener of [...this.lostListeners]) listener();
  }

  private closeAll(): void {
    this.closed = true;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new CdpError(`${p.method}: the DevTools connection closed`));
    }
    this.tellLost();
  }

  private dispatch(data: Buffer | string): void {
    let message: CdpMessage;
    try {
      message = JSON.parse(data.toString()) as CdpMessage;
    } catch {
      return;
    }
    if (message.id !== undefined) {
      const waiting = this.pending.get(message.id);
      if (!waiting) return; // Selenium's own command
      this.pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.error) waiting.reject(new CdpError(`${waiting.method}: ${message.error.message}`));
      else waiting.resolve(message.result ?? {});
      return;
    }
    if (!message.method) return;
    if (message.method === 'Target.attachedToTarget' || message.method === 'Target.detachedFromTarget') return this.onTargetEvent(message);
    if (message.method === 'Target.targetCrashed' && this.pageTarget !== undefined && message.params?.targetId === this.pageTarget) {
      this.onPageEnd(String(message.params.status));
    }
    const own = this.pageSession;
    if (message.sessionId && own && message.sessionId !== own) return;
    for (const handler of this.handlers.get(message.method) ?? []) {
      try {
        handler(message.params ?? {});
      } catch {
        // A handler's bug must not take the connection down with it.
      }
    }
  }
}
