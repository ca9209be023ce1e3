import type { ForwardedMethod, ResourceType } from '../scrape-request.js';
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

/** The types Chrome (156) accepts in a Fetch.enable filter. */
const FILTERABLE = new Set(['Document', 'Stylesheet', 'Image', 'Media', 'Font', 'Script', 'XHR', 'Fetch', 'EventSource', 'Ping', 'CSPViolationReport', 'Other']);

const BLOCK_WEBSOCKETS = `Object.defineProperty(window, 'WebSocket', {
  configurable: false,
  writable: false,
  value: function WebSocket() { throw new DOMException('WebSocket connections are blocked for this request', 'SecurityError'); },
});`;

export interface MainRequestRewrite {
  method: ForwardedMethod;
  body: Buffer | undefined;
  headers: Record<string, string>;
  /** From the URL's user name and password (see url-credentials.ts): sent to `origin` only. */
  credentials: { authorization: string; origin: string } | undefined;
}

interface PausedRequest {
  requestId: string;
  /** The Network domain's id of the same request. */
  networkId?: string;
  request: { url: string; method: string; headers: Record<string, string> };
  resourceType: string;
  frameId?: string;
}

/** How long an ambiguous paused request waits for the Network domain to name its type. */
const NAMING_WAIT_MS = 200;

/**
 * CDP `Fetch` interception for one render: blocked resource types fail inside the browser
 * (the target never sees them), and the first main-frame document request is rewritten to the
 * caller's method, body and headers, so a POST reaches the target as the page's navigation.
 * Credentials from the URL go with that request, and with the hops it is redirected to as long as
 * they stay on its origin, never elsewhere. Blocking `document` blocks subframes only, never the
 * main navigation.
 */
export class RequestInterceptor {
  blockedCount = 0;
  private rewritten = false;
  /** The Network domain's id of the main request: its redirect hops share it. */
  private mainNetworkId: string | undefined;
  private scriptId: string | undefined;
  private off: (() => void) | undefined;
  private readonly blocked: Set<string>;
  /** Blocked types the Fetch layer reports coarsely (a text track as Media, a manifest as Other). */
  private readonly needsNetworkType: boolean;
  private readonly networkTypes = new Map<string, string>();
  private readonly awaitingType = new Map<string, PausedRequest>();
  private offNetwork: (() => void) | undefined;

  constructor(
    private readonly cdp: CdpSession,
    private readonly mainFrameId: string,
    block: ResourceType[],
    private readonly rewrite: MainRequestRewrite | undefined,
  ) {
    this.blocked = new Set(block.flatMap((t) => CDP_TYPES[t]));
    this.needsNetworkType = [...this.blocked].some((t) => t !== 'WebSocket' && !FILTERABLE.has(t));
  }

  async enable(): Promise<void> {
    // WebSocket handshakes never pass through Fetch: the constructor is taken away instead,
    // in every document before its own scripts run.
    if (this.blocked.has('WebSocket')) {
      // Scripts added for new documents run only while the Page domain is on (each tab has it on).
      const { identifier } = await this.cdp.send<{ identifier: string }>('Page.addScriptToEvaluateOnNewDocument', { source: BLOCK_WEBSOCKETS });
      this.scriptId = identifier;
    }
    const types = new Set([...this.blocked].filter((t) => t !== 'WebSocket'));
    if (this.rewrite) types.add('Document');
    if (types.size === 0) return;
    this.off = this.cdp.on('Fetch.requestPaused', (p) => this.onPaused(p as unknown as PausedRequest));
    // Chrome's Fetch layer neither filters on nor reports some types (a text track pauses as
    // Media, a manifest as Other): blocking one of those pauses every request, and an ambiguous
    // one waits until the Network domain has named its type.
    if (this.needsNetworkType) {
      this.offNetwork = this.cdp.on('Network.requestWillBeSent', (p) => this.named(String(p.requestId), String(p.type)));
    }
    const patterns = this.needsNetworkType
      ? [{ urlPattern: '*', requestStage: 'Request' }]
      : [...types].map((resourceType) => ({ urlPattern: '*', resourceType, requestStage: 'Request' }));
    await this.cdp.send('Fetch.enable', { patterns });
  }

  stop(): void {
    this.off?.();
    this.offNetwork?.();
    if (this.scriptId) this.cdp.post('Page.removeScriptToEvaluateOnNewDocument', { identifier: this.scriptId });
  }

  private onPaused(p: PausedRequest): void {
    const mainDocument = p.resourceType === 'Document' && p.frameId === this.mainFrameId;
    if (mainDocument && this.rewrite && !this.rewritten) {
      this.rewritten = true;
      this.mainNetworkId = p.networkId;
      this.cdp.post('Fetch.continueRequest', {
        requestId: p.requestId,
        method: this.rewrite.method,
        postData: this.rewrite.body?.toString('base64'),
        // The URL's credentials, when it has any, win over a forwarded Authorization (as in plain mode).
        headers: mergeHeaders(p.request.headers, {
          ...(this.rewrite.credentials ? withoutAuthorization(this.rewrite.headers) : this.rewrite.headers),
          ...this.credentialsFor(p.request.url),
        }),
      });
      return;
    }
    if (mainDocument && this.rewrite?.credentials && p.networkId !== undefined && p.networkId === this.mainNetworkId) {
      // A redirect hop of the main request: whatever Chrome carried over, the credentials go on
      // only while the hop stays on their origin.
      const headers = mergeHeaders(withoutAuthorization(p.request.headers), this.credentialsFor(p.request.url));
      this.cdp.post('Fetch.continueRequest', { requestId: p.requestId, headers });
      return;
    }
    if (!mainDocument && this.needsNetworkType && (p.resourceType === 'Media' || p.resourceType === 'Other') && p.networkId) {
      const type = this.networkTypes.get(p.networkId);
      if (type === undefined) {
        this.awaitingType.set(p.networkId, p);
        setTimeout(() => this.named(p.networkId!, p.resourceType), NAMING_WAIT_MS);
        return;
      }
      return this.decide(p, type);
    }
    this.decide(p, mainDocument ? undefined : p.resourceType);
  }

  /** The Authorization header for a request to `url`: the URL's credentials, on their own origin only. */
  private credentialsFor(url: string): Record<string, string> {
    const credentials = this.rewrite?.credentials;
    if (!credentials) return {};
    let origin: string | undefined;
    try {
      origin = new URL(url).origin;
    } catch {
      origin = undefined;
    }
    return origin === credentials.origin ? { Authorization: credentials.authorization } : {};
  }

  private named(networkId: string, type: string): void {
    this.networkTypes.set(networkId, type);
    const waiting = this.awaitingType.get(networkId);
    if (!waiting) return;
    this.awaitingType.delete(networkId);
    this.decide(waiting, type);
  }

  /** `type` undefined: never blocked (the main document). */
  private decide(p: PausedRequest, type: string | undefined): void {
    if (type !== undefined && this.blocked.has(type)) {
      this.blockedCount++;
      this.cdp.post('Fetch.failRequest', { requestId: p.requestId, errorReason: 'BlockedByClient' });
      return;
    }
    this.cdp.post('Fetch.continueRequest', { requestId: p.requestId });
  }
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
}

function mergeHeaders(original: Record<string, string>, forwarded: Record<string, string>): Array<{ name: string; value: string }> {
  const lower = new Set(Object.keys(forwarded).map((n) => n.toLowerCase()));
  const out = Object.entries(original)
    .filter(([name]) => !lower.has(name.toLowerCase()))
    .map(([name, value]) => ({ name, value }));
  for (const [name, value] of Object.entries(forwarded)) out.push({ name, value });
  return out;
}
