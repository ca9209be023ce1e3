import type { HostGate, HostRule } from './host-gate.js';
import type { SiteFile, SiteFiles } from './site-fetcher.js';

/** A holder of a file's turn whose instance died lets go after the file's time plus this. */
const LEASE_MARGIN_MS = 10_000;

/**
 * A crawl's robots.txt and sitemaps, each fetched in a turn of its host (host-gate.ts) like the
 * crawl's pages: a host's cap counts every request a crawl sends it, over every instance. The
 * file's turn follows the cap alone (Crawl-delay is robots.txt's, not known before it is read).
 * Throws HostBusyError when the turn does not come: the page that asked goes back to the queue.
 */
export class GatedFiles implements SiteFiles {
  constructor(private readonly files: SiteFiles, private readonly gate: HostGate, private readonly cap: number, private readonly cancelled?: AbortSignal) {}

  async get(url: string, timeoutMs: number, maxBytes?: number): Promise<SiteFile | undefined> {
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      return undefined;
    }
    const rule: HostRule = { cap: this.cap, spacingMs: 0, leaseMs: timeoutMs + LEASE_MARGIN_MS };
    const turn = await this.gate.enter(host, rule, this.cancelled);
    try {
      return await this.files.get(url, timeoutMs, maxBytes);
    } finally {
      void turn.release().catch(() => undefined);
    }
  }
}
