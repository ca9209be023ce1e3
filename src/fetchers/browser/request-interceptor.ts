import type { ForwardedMethod, ResourceType } from '../fetcher.js';
import type { CdpSession } from './cdp-session.js';

/** The spec's resource types are Chrome's, lower-cased. */
const CDP_TYPES: Record<ResourceType, string[]> = {
  document: ['Document'],
  stylesheet: ['Stylesheet'],
  image: ['Image'],
  media: ['Media'],
  font: ['Font'],
  script: ['Script'],
  texttrack: ['TextTrack'],
  xhr: ['XHR'],
  fetch: ['Fetch'],
  eventsource: ['EventSource'],
  websocket: ['WebSocket'],
  manifest: ['Manifest'],
  other: ['Other', 'Ping', 'Prefetch', 'CSPViolationReport', 'SignedExchange', 'Preflight'],
};

const BLOCK_WEBSOCKETS = `Object.defineProperty(window, 'WebSocket', {
  configurable: false,
  writable: false,
  value: function WebSocket() { throw new DOMException('WebSocket connections are blocked for this request', 'SecurityError'); },
});`;

export interface MainRequestRewrite {
  method: ForwardedMethod;
  body: Buffer | undefined;
  headers: Record<string, string>;
}

interface PausedRequest {
  requestId: string;
  request: { url: string; method: string; headers: Record<string, string> };
  resourceType: string;
  frameId?: string;
}

/**
 * CDP `Fetch` interception for one render: blocked resource types fail inside the browser
 * (the target never sees them), and the first main-frame document request is rewritten to the
 * caller's method, body and headers, so a POST reaches the target as the page's navigation.
 * Blocking `document` blocks subframes only, never the main navigation.
 */
export class RequestInterceptor {
  blockedCount = 0;
  private rewritten = false;
  private scriptId: string | undefined;
  private off: (() => void) | undefined;
  private readonly blocked: Set<string>;

  constructor(
    private readonly cdp: CdpSession,
    private readonly mainFrameId: string,
    block: ResourceType[],
    private readonly rewrite: MainRequestRewrite | undefined,
  ) {
    this.blocked = new Set(block.flatMap((t) => CDP_TYPES[t]));
  }

  async enable(): Promise<void> {
    // WebSocket handshakes never pass through Fetch: the constructor is taken away instead,
    // in every document before its own scripts run.
    if (this.blocked.has('WebSocket')) {
      // Scripts added for new documents run only while the Page domain is on (the session's
      // reset turns it off again).
      await this.cdp.send('Page.enable');
      const { identifier } = await this.cdp.send<{ identifier: string }>('Page.addScriptToEvaluateOnNewDocument', { source: BLOCK_WEBSOCKETS });
      this.scriptId = identifier;
    }
    const types = new Set([...this.blocked].filter((t) => t !== 'WebSocket'));
    if (this.rewrite) types.add('Document');
    if (types.size === 0) return;
    this.off = this.cdp.on('Fetch.requestPaused', (p) => this.onPaused(p as unknown as PausedRequest));
    await this.cdp.send('Fetch.enable', { patterns: [...types].map((resourceType) => ({ urlPattern: '*', resourceType, requestStage: 'Request' })) });
  }

  stop(): void {
    this.off?.();
    if (this.scriptId) this.cdp.post('Page.removeScriptToEvaluateOnNewDocument', { identifier: this.scriptId });
  }

  private onPaused(p: PausedRequest): void {
    const mainDocument = p.resourceType === 'Document' && p.frameId === this.mainFrameId;
    if (mainDocument && this.rewrite && !this.rewritten) {
      this.rewritten = true;
      this.cdp.post('Fetch.continueRequest', {
        requestId: p.requestId,
        method: this.rewrite.method,
        postData: this.rewrite.body?.toString('base64'),
        headers: mergeHeaders(p.request.headers, this.rewrite.headers),
      });
      return;
    }
    if (!mainDocument && this.blocked.has(p.resourceType)) {
      this.blockedCount++;
      this.cdp.post('Fetch.failRequest', { requestId: p.requestId, errorReason: 'BlockedByClient' });
      return;
    }
    this.cdp.post('Fetch.continueRequest', { requestId: p.requestId });
  }
}

function mergeHeaders(original: Record<string, string>, forwarded: Record<string, string>): Array<{ name: string; value: string }> {
  const lower = new Set(Object.keys(forwarded).map((n) => n.toLowerCase()));
  const out = Object.entries(original)
    .filter(([name]) => !lower.has(name.toLowerCase()))
    .map(([name, value]) => ({ name, value }));
  for (const [name, value] of Object.entries(forwarded)) out.push({ name, value });
  return out;
}
