import type { ProxyEndpoint } from './proxy-endpoint.js';

const FIRST_COOLDOWN_MS = 1_000;
const MAX_COOLDOWN_MS = 5 * 60_000;

/**
 * Shared memory of which proxies failed lately: each consecutive failure doubles a proxy's
 * cool-down (1 s, 2 s, 4 s … 5 min); one success clears it.
 */
export class ProxyHealth {
  private readonly state = new Map<string, { failures: number; until: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    /** Told of every proxy failure (metrics); never given the proxy's URL, which holds its credentials. */
    private readonly onFailure: (proxy: ProxyEndpoint) => void = () => undefined,
  ) {}

  /** The proxy failed as a proxy: cool it down. */
  failed(proxy: ProxyEndpoint): void {
    this.onFailure(proxy);
    this.cooldown(proxy.id);
  }

  cooldown(id: string): void {
    const failures = (this.state.get(id)?.failures ?? 0) + 1;
    this.state.set(id, { failures, until: this.now() + Math.min(FIRST_COOLDOWN_MS * 2 ** (failures - 1), MAX_COOLDOWN_MS) });
  }

  recovered(id: string): void {
    this.state.delete(id);
  }

  cooling(id: string): boolean {
    return this.coolUntil(id) > this.now();
  }

  coolUntil(id: string): number {
    return this.state.get(id)?.until ?? 0;
  }

  failures(id: string): number {
    return this.state.get(id)?.failures ?? 0;
  }
}
