import { TargetTooLargeError } from '../../egress/fetch-errors.js';
import { ElementNotFoundError } from '../engine-errors.js';
import type { Capture } from '../fetcher.js';
import type { CaptureSpec, PaperFormat } from '../scrape-request.js';
import type { CdpSession } from './cdp-session.js';
import type { PageReader } from './page-reader.js';

/** A full page or an element is cut at this height (CSS pixels): Chrome's own texture limit is near it. */
export const MAX_CAPTURE_HEIGHT = 16_384;
/**
 * No capture has more pixels than the widest window (3,840) by the tallest capture: what Chromium
 * rasters and encodes is bounded before it is asked to, whatever the page lays out.
 */
export const MAX_CAPTURE_PIXELS = 3_840 * MAX_CAPTURE_HEIGHT;
/** No image or PDF larger than this is answered. */
export const MAX_CAPTURE_BYTES = 20 * 1024 * 1024;
/** A PDF is read from Chrome in pieces of this size, so an oversized one is refused part way. */
const PDF_CHUNK_BYTES = 1024 * 1024;

/** Paper sizes in inches, as Page.printToPDF takes them. */
const PAPER: Record<PaperFormat, { width: number; height: number }> = {
  A0: { width: 33.11, height: 46.81 },
  A1: { width: 23.39, height: 33.11 },
  A2: { width: 16.54, height: 23.39 },
  A3: { width: 11.69, height: 16.54 },
  A4: { width: 8.27, height: 11.69 },
  A5: { width: 5.83, height: 8.27 },
  A6: { width: 4.13, height: 5.83 },
  Letter: { width: 8.5, height: 11 },
  Legal: { width: 8.5, height: 14 },
  Tabloid: { width: 11, height: 17 },
  Ledger: { width: 17, height: 11 },
};

interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
  scale: 1;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The part of `box` (page coordinates) that is captured: within the page's layout, no wider than
 * the window, no taller than MAX_CAPTURE_HEIGHT, and within MAX_CAPTURE_PIXELS; whole CSS pixels
 * (the image's size, fixed before Chromium is asked for it). Undefined when nothing of it is
 * inside the layout.
 */
export function captureClip(box: Box, layout: { width: number; height: number }, windowWidth: number): { clip: Clip; truncated: boolean } | undefined {
  const left = Math.max(0, Math.floor(box.x));
  const top = Math.max(0, Math.floor(box.y));
  const spanX = Math.min(Math.ceil(box.x + box.width), Math.ceil(layout.width)) - left;
  const spanY = Math.min(Math.ceil(box.y + box.height), Math.ceil(layout.height)) - top;
  if (spanX < 1 || spanY < 1) return undefined;
  const width = Math.min(spanX, windowWidth);
  const height = Math.min(spanY, MAX_CAPTURE_HEIGHT, Math.floor(MAX_CAPTURE_PIXELS / width));
  return { clip: { x: left, y: top, width, height, scale: 1 }, truncated: width < spanX || height < spanY };
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
    let cut: { clip: Clip; truncated: boolean } | undefined;
    if (spec.selector !== undefined) {
      // One round trip: the element's box (scrolled into view) and the layout it is in.
      const [box, layout] = await Promise.all([this.reader.box(spec.selector), this.layout(timeoutMs)]);
      cut = box ? captureClip(box, layout, spec.width) : undefined;
      if (!cut) throw new ElementNotFoundError(`no element matching "${spec.selector}" has a size within the page's layout`);
    } else if (spec.fullPage) {
      const layout = await this.layout(timeoutMs);
      cut = captureClip({ x: 0, y: 0, width: spec.width, height: Math.max(spec.height, layout.height) }, { width: spec.width, height: Math.max(spec.height, layout.height) }, spec.width);
    }
    // Without a clip the image is the window, whose size the request set (within the same budget).
    const clip = cut?.clip;
    const truncated = cut?.truncated ?? false;
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

  /** The page's laid-out size, in CSS pixels. */
  private async layout(timeoutMs: number): Promise<{ width: number; height: number }> {
    const metrics = await this.cdp.send<{ cssContentSize: { width: number; height: number } }>('Page.getLayoutMetrics', {}, timeoutMs);
    return metrics.cssContentSize;
  }

  private async pdf(spec: Extract<CaptureSpec, { kind: 'pdf' }>, timeoutMs: number): Promise<Capture> {
    const paper = PAPER[spec.paper];
    const printed = await this.cdp.send<{ stream?: string }>(
      'Page.printToPDF',
      { paperWidth: paper.width, paperHeight: paper.height, landscape: spec.landscape, printBackground: spec.printBackground, scale: spec.scale ?? 1, transferMode: 'ReturnAsStream' },
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
