/** One thing a server needs before it should be sent traffic. */
export interface ReadinessCheck {
  name: string;
  /** Resolves true when ready; never rejects. */
  ready(): Promise<boolean>;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'ok' | 'failing'>;
}

/**
 * What /readyz answers: every check, run side by side. A server that is draining is never ready,
 * so a load balancer stops sending it requests while those in flight finish.
 */
export class Readiness {
  private draining = false;

  constructor(private readonly checks: ReadinessCheck[]) {}

  drain(): void {
    this.draining = true;
  }

  async report(): Promise<ReadinessReport> {
    const results = await Promise.all(this.checks.map(async (c) => [c.name, await c.ready()] as const));
    const checks: ReadinessReport['checks'] = {};
    for (const [name, ok] of results) checks[name] = ok ? 'ok' : 'failing';
    if (this.draining) checks.shutdown = 'failing';
    return { ready: !this.draining && results.every(([, ok]) => ok), checks };
  }
}

/** A Selenium Grid is ready when its /status says it can take a session. */
export async function gridAnswers(remoteUrl: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(new URL('status', remoteUrl.endsWith('/') ? remoteUrl : `${remoteUrl}/`), { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return false;
    const body = (await res.json()) as { value?: { ready?: boolean } };
    return body.value?.ready === true;
  } catch {
    return false;
  }
}
