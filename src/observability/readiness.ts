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

/**
 * A Selenium Grid is up when its /status answers with a node UP. Not its `ready` flag: that is
 * false whenever every slot is taken, which the instances' own warm sessions do by design.
 */
export async function gridAnswers(remoteUrl: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(new URL('status', remoteUrl.endsWith('/') ? remoteUrl : `${remoteUrl}/`), { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return false;
    const body = (await res.json()) as { value?: { ready?: boolean; nodes?: Array<{ availability?: string }> } };
    // A standalone Grid lists no nodes: its own readiness is all there is.
    if (!body.value?.nodes) return body.value?.ready === true;
    return body.value.nodes.some((n) => n.availability === 'UP');
  } catch {
    return false;
  }
}
