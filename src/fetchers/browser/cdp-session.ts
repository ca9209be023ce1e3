import type { WebDriver } from 'selenium-webdriver';

/** What selenium-webdriver's CDP connection is at run time (its typings stop at `Promise<any>`). */
interface SeleniumCdpConnection {
  sessionId: string | null;
  send(method: string, params?: object): Promise<{ result?: unknown; error?: { message: string } }>;
  _wsConnection: {
    on(event: 'message', listener: (data: Buffer | string) => void): void;
    off(event: 'message', listener: (data: Buffer | string) => void): void;
    on(event: 'close', listener: () => void): void;
    close(): void;
  };
}

export type CdpEventHandler = (params: Record<string, unknown>) => void;

export class CdpError extends Error {}

/**
 * Chrome DevTools Protocol over Selenium's own connection to the session's page target (local
 * chromedriver or Grid alike), with events: Selenium exposes commands only, so events are read
 * from its socket here, in the one place that knows that socket's private name.
 */
export class CdpSession {
  private readonly handlers = new Map<string, Set<CdpEventHandler>>();
  private closed = false;

  private constructor(private readonly connection: SeleniumCdpConnection) {
    connection._wsConnection.on('message', (data) => this.dispatch(data));
    connection._wsConnection.on('close', () => {
      this.closed = true;
    });
  }

  static async attach(driver: WebDriver): Promise<CdpSession> {
    const connection = (await driver.createCDPConnection('page')) as SeleniumCdpConnection;
    return new CdpSession(connection);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async send<T = Record<string, unknown>>(method: string, params: object = {}): Promise<T> {
    if (this.closed) throw new CdpError(`${method}: the DevTools connection is closed`);
    const reply = await this.connection.send(method, params);
    if (reply.error) throw new CdpError(`${method}: ${reply.error.message}`);
    return (reply.result ?? {}) as T;
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
    this.closed = true;
    try {
      this.connection._wsConnection.close();
    } catch {
      // already closed
    }
  }

  private dispatch(data: Buffer | string): void {
    let message: { method?: string; params?: Record<string, unknown>; sessionId?: string };
    try {
      message = JSON.parse(data.toString()) as typeof message;
    } catch {
      return;
    }
    if (!message.method) return;
    if (message.sessionId && this.connection.sessionId && message.sessionId !== this.connection.sessionId) return;
    for (const handler of this.handlers.get(message.method) ?? []) {
      try {
        handler(message.params ?? {});
      } catch {
        // A handler's bug must not take the connection down with it.
      }
    }
  }
}
