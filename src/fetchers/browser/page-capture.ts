import { ElementNotFoundError, TargetTooLargeError } from '../../errors/engine-errors.js';
import type { Capture, CaptureSpec, PaperFormat } from '../fetcher.js';
import type { CdpSession } from './cdp-session.js';
import type { PageReader } from './page-reader.js';

/** A full page or an element is cut at this height (CSS pixels): Chrome's own texture limit is near it. */
export const MAX_CAPTURE_HEIGHT = 16_384;
/** No image or PDF larger than this is answered. */
export const MAX_CAPTURE_BYTES = 20 * 1024 * 1024;
/** A PDF is read from Chrome in pieces of this size, so an oversized one is refused part way. */
const PDF_CHUNK_BYTES = 1024 * 1024;

/** Paper sizes in inches, as Page.printToPDF takes them. */
const PAPER: Record<PaperFormat, { width: number; height: number }> = {
  A4: { width: 8.27, height: 11.69 },
  Letter: { width: 8.5, height: 11 },
  Legal: { width: 8.5, height: 14 },
  A3: { width: 11.69, height: 16.54 },
};

interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
  scale: 1;
}

/**
 * Takes the render's screenshot or PDF through the session's own DevTools connection, once the
 * page is ready: only ever of this request's document (the render has checked the window shows
 * it), bounded in height and in bytes.
 */
export class PageCapture {
  constructor(
    private readonly cdp: CdpSession,
    private readonly reader: PageReader,
  ) {}

  /** The window size a screenshot needs set before the page is laid out (undefined: none). */
  static window(spec: CaptureSpec | undefined): { width: number; height: number } | undefined {
    return spec?.kind === 'screenshot' ? { width: spec.width, height: spec.height } : undefined;
  }

  take(spec: CaptureSpec, timeoutMs: number): Promise<Capture> {
    return spec.kind === 'pdf' ? this.pdf(spec, timeoutMs) : this.screenshot(spec, timeoutMs);
  }

  private async screenshot(spec: Extract<CaptureSpec, { kind: 'screenshot' }>, timeoutMs: number): Promise<Capture> {
    let clip: Clip | undefined;
    let truncated = false;
    if (spec.selector !== undefined) {
      const box = await this.reader.box(spec.selector);
      if (!box) throw new ElementNotFoundError(`no element with a size matches "${spec.selector}"`);
      truncated = box.height > MAX_CAPTURE_HEIGHT;
      clip = { x: Math.max(0, box.x), y: Math.max(0, box.y), width: Math.min(box.width, MAX_CAPTURE_HEIGHT), height: Math.min(box.height, MAX_CAPTURE_HEIGHT), scale: 1 };
    } else if (spec.fullPage) {
      const metrics = await this.cdp.send<{ cssContentSize: { height: number } }>('Page.getLayoutMetrics', {}, timeoutMs);
      const height = Math.max(spec.height, Math.ceil(metrics.cssContentSize.height));
      truncated = height > MAX_CAPTURE_HEIGHT;
      clip = { x: 0, y: 0, width: spec.width, height: Math.min(height, MAX_CAPTURE_HEIGHT), scale: 1 };
    }
    const shot = await this.cdp.send<{ data: string }>(
      'Page.captureScreenshot',
      {
        format: spec.format,
        ...(spec.format === 'jpeg' && spec.quality !== undefined ? { quality: spec.quality } : {}),
        // Beyond the window only when a clip reaches past it; the window alone is the common, fast case.
        ...(clip ? { clip, captureBeyondViewport: true } : {}),
        fromSurface: true,
      },
      timeoutMs,
    );
    // Measured on the base64 text before it is decoded: an oversized image is never copied again.
    if (shot.data.length > (MAX_CAPTURE_BYTES * 4) / 3 + 4) throw new TargetTooLargeError(`the screenshot exceeds ${MAX_CAPTURE_BYTES} bytes`);
    return { data: Buffer.from(shot.data, 'base64'), contentType: spec.format === 'jpeg' ? 'image/jpeg' : 'image/png', truncated };
  }

  private async pdf(spec: Extract<CaptureSpec, { kind: 'pdf' }>, timeoutMs: number): Promise<Capture> {
    const paper = PAPER[spec.paper];
    const printed = await this.cdp.send<{ stream?: string }>(
      'Page.printToPDF',
      { paperWidth: paper.width, paperHeight: paper.height, landscape: spec.landscape, printBackground: spec.printBackground, transferMode: 'ReturnAsStream' },
      timeoutMs,
    );
    if (!printed.stream) throw new TargetTooLargeError('the browser gave no PDF');
    const parts: Buffer[] = [];
    let size = 0;
    try {
      for (;;) {
        const chunk = await this.cdp.send<{ data: string; base64Encoded?: boolean; eof: boolean }>('IO.read', { handle: printed.stream, size: PDF_CHUNK_BYTES }, timeoutMs);
        const bytes = Buffer.from(chunk.data, chunk.base64Encoded ? 'base64' : 'latin1');
        size += bytes.length;
        if (size > MAX_CAPTURE_BYTES) throw new TargetTooLargeError(`the PDF exceeds ${MAX_CAPTURE_BYTES} bytes`);
        parts.push(bytes);
        if (chunk.eof) break;
      }
    } finally {
      this.cdp.post('IO.close', { handle: printed.stream });
    }
    return { data: Buffer.concat(parts), contentType: 'application/pdf', truncated: false };
  }
}
