import type { XhrRecord } from '../fetcher.js';
import type { CdpSession } from './cdp-session.js';

interface CdpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  postData?: string;
}
interface CdpResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
}

const MAX_XHRS = 100;
const MAX_XHR_BODY_CHARS = 1024 * 1024;
/** Bodies are fetched from the browser only when this small, and only this much in all per render. */
const MAX_XHR_BODY_BYTES = 1024 * 1024;
const MAX_XHR_BODIES_BYTES = 8 * 1024 * 1024;

/** CDP header objects join repeated headers with "\n"; the answer lists each one. */
function headerPairs(headers: Record<string, string>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) for (const v of String(value).split('\n')) out.push([name, v]);
  return out;
}

/** The raw status line and headers, as the server sent them (names, order, repeats). */
function parseHeadersText(text: string): Array<[string, string]> {
  return text
    .split('\r\n')
    .slice(1)
    .filter((line) => line.includes(':'))
    .map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()] as [string, string];
    });
}

interface XhrDraft extends XhrRecord {
  done?: Promise<void>;
  /** Decoded bytes received so far. */
  bytes: number;
}

/**
 * Watches one render's network traffic through CDP: the main document's real response (status
 * and headers, from the network events rather than guessed), and the XHR/fetch calls.
 */
export interface MainDocumentLimits {
  maxRedirects: number;
  maxBodyBytes: number;
  /** Called once when the main document passes a limit; the render stops loading. */
  onExceeded(why: 'redirects' | 'body'): void;
}

export class NetworkRecorder {
  mainRequestId: string | undefined;
  /** The main document's URL as last requested (after any redirect hop). */
  mainUrl: string | undefined;
  mainResponse: { url: string; status: number; headers: Array<[string, string]> } | undefined;
  mainFailure: string | undefined;
  /** The main document's answer began but did not complete (the connection was cut mid-body). */
  mainCutOff: string | undefined;
  private settled = false;
  private readonly settleWaiters = new Set<() => void>();
  private redirects = 0;
  private mainBytes = 0;
  private xhrBodyBytes = 0;
  private readonly extraInfo = new Map<string, { statusCode: number; headers: Record<string, string>; headersText?: string }>();
  private readonly xhrs = new Map<string, XhrDraft>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly cdp: CdpSession,
    private readonly mainFrameId: string,
    private readonly collectXhrs: boolean,
    private readonly limits: MainDocumentLimits,
  ) {}

  start(): void {
    const on = (event: string, handler: (p: Record<string, unknown>) => void) => this.unsubscribe.push(this.cdp.on(event, handler));
    on('Network.requestWillBeSent', (p) => {
      const request = p.request as CdpRequest;
      if (p.type === 'Document' && p.frameId === this.mainFrameId && p.requestId === p.loaderId && !p.redirectResponse) {
        this.mainRequestId = String(p.requestId);
        this.mainUrl = request.url;
        this.mainResponse = undefined;
        this.mainFailure = undefined;
        this.mainCutOff = undefined;
        this.settled = false;
        this.redirects = 0;
        this.mainBytes = 0;
      } else if (p.requestId === this.mainRequestId && p.redirectResponse) {
        this.mainUrl = request.url;
        if (++this.redirects === this.limits.maxRedirects + 1) this.limits.onExceeded('redirects');
      }
      if (this.collectXhrs && (p.type === 'XHR' || p.type === 'Fetch') && this.xhrs.size < MAX_XHRS) {
        this.xhrs.set(String(p.requestId), {
          url: request.url,
          method: request.method,
          status: 0,
          headers: [],
          request_body: request.postData ?? null,
          body: null,
          bytes: 0,
        });
      }
    });
    on('Network.responseReceived', (p) => {
      const response = p.response as CdpResponse;
      if (p.requestId === this.mainRequestId) {
        this.mainResponse = { url: response.url, status: response.status, headers: headerPairs(response.headers) };
      }
      const xhr = this.xhrs.get(String(p.requestId));
      if (xhr) {
        xhr.status = response.status;
        xhr.headers = headerPairs(response.headers).map(([name, value]) => ({ name, value }));
      }
    });
    // Decoded bytes as they arrive, so a compressed bomb is stopped at the same cap as the plain engine.
    on('Network.dataReceived', (p) => {
      const xhr = this.xhrs.get(String(p.requestId));
      if (xhr) xhr.bytes += Number(p.dataLength ?? 0);
      if (p.requestId !== this.mainRequestId) return;
      const before = this.mainBytes;
      this.mainBytes += Number(p.dataLength ?? 0);
      if (before <= this.limits.maxBodyBytes && this.mainBytes > this.limits.maxBodyBytes) this.limits.onExceeded('body');
    });
    on('Network.responseReceivedExtraInfo', (p) => {
      this.extraInfo.set(String(p.requestId), p as { statusCode: number; headers: Record<string, string>; headersText?: string });
    });
    on('Network.loadingFinished', (p) => {
      if (p.requestId === this.mainRequestId) this.mainSettled();
      const xhr = this.xhrs.get(String(p.requestId));
      // A page can answer its own XHRs with anything: only small bodies cross into this process.
      if (xhr) xhr.bytes = Math.max(xhr.bytes, Number(p.encodedDataLength ?? 0));
      if (xhr && xhr.bytes <= MAX_XHR_BODY_BYTES && this.xhrBodyBytes + xhr.bytes <= MAX_XHR_BODIES_BYTES) {
        this.xhrBodyBytes += xhr.bytes;
        xhr.done = this.body(String(p.requestId)).then((b) => void (xhr.body = b ? b.toString('utf8').slice(0, MAX_XHR_BODY_CHARS) : null));
      }
    });
    on('Network.loadingFailed', (p) => {
      if (p.requestId !== this.mainRequestId) return;
      if (!this.mainResponse) this.mainFailure = String(p.errorText);
      // Chrome aborts a download or a superseded navigation itself: that is not the target cutting it.
      else if (!p.canceled && p.errorText !== 'net::ERR_ABORTED') this.mainCutOff = String(p.errorText);
      this.mainSettled();
    });
  }

  /**
   * Resolves once Chrome said whether the main document's body arrived whole (loadingFinished or
   * loadingFailed), or after `ms`: those events can trail the load event WebDriver returns on.
   */
  mainBodySettled(ms: number): Promise<void> {
    if (this.settled || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.settleWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.settleWaiters.add(done);
    });
  }

  private mainSettled(): void {
    this.settled = true;
    for (const wake of [...this.settleWaiters]) wake();
  }

  stop(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /** The main document's headers: the raw ones (with Set-Cookie) when Chrome reported them. */
  mainHeaders(): Array<[string, string]> {
    if (!this.mainResponse || !this.mainRequestId) return [];
    const extra = this.extraInfo.get(this.mainRequestId);
    if (extra && extra.statusCode === this.mainResponse.status) {
      return extra.headersText ? parseHeadersText(extra.headersText) : headerPairs(extra.headers);
    }
    return this.mainResponse.headers;
  }

  /** A response body as Chrome received it (after content decoding). */
  async body(requestId: string): Promise<Buffer | undefined> {
    try {
      const r = await this.cdp.send<{ body: string; base64Encoded: boolean }>('Network.getResponseBody', { requestId });
      return Buffer.from(r.body, r.base64Encoded ? 'base64' : 'utf8');
    } catch {
      return undefined;
    }
  }

  async xhrRecords(): Promise<XhrRecord[]> {
    const drafts = [...this.xhrs.values()];
    await Promise.all(drafts.map((d) => d.done));
    return drafts.map(({ url, status, method, headers, request_body, body }) => ({ url, status, method, headers, request_body, body }));
  }
}
