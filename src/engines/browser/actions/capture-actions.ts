import type { Capture } from '../../fetcher.js';
import { PageCapture } from '../page-capture.js';
import { actionTime, type ActionPage } from './action-page.js';
import type { ActionOf } from './browser-action.js';

function dataUri(capture: Capture): string {
  return `data:${capture.contentType};base64,${capture.data.toString('base64')}`;
}

/** The window as the page is now laid out in it, in CSS pixels. */
async function currentWindow(page: ActionPage): Promise<{ width: number; height: number }> {
  const metrics = await page.cdp.send<{ cssLayoutViewport: { clientWidth: number; clientHeight: number } }>('Page.getLayoutMetrics', {}, Math.max(1, actionTime(page)));
  return { width: Math.round(metrics.cssLayoutViewport.clientWidth), height: Math.round(metrics.cssLayoutViewport.clientHeight) };
}

/**
 * The window a screenshot's spec names. Only a full-page capture reads it (its clip is as wide as
 * the window, as tall as the layout); a capture of the window is the window whatever its size, so
 * the layout is not asked for then (Page.getLayoutMetrics forces a layout of the whole page).
 */
async function windowFor(page: ActionPage, action: ActionOf<'screenshot'>): Promise<{ width: number; height: number }> {
  if (action.viewport) return action.viewport;
  return action.fullPage ? currentWindow(page) : { width: 0, height: 0 };
}

/**
 * A screenshot of the page as it is now, as a `data:` URI: PNG, or JPEG with a quality; in the
 * window it names (which stays for the rest of the render), else the window as it is. Bounded as
 * /v2/screenshot's are (16,384 px tall, 20 MB).
 */
export async function screenshot(page: ActionPage, action: ActionOf<'screenshot'>): Promise<string> {
  if (action.viewport) await page.useWindow(action.viewport);
  const window = await windowFor(page, action);
  const capture = await new PageCapture(page.cdp, page.reader).take(
    { kind: 'screenshot', format: action.quality === undefined ? 'png' : 'jpeg', quality: action.quality, fullPage: action.fullPage, selector: undefined, ...window },
    Math.max(1, actionTime(page)),
  );
  return dataUri(capture);
}

/** The page printed as it is now, as a `data:application/pdf` URI (20 MB at most, as /v2/pdf's). */
export async function pdf(page: ActionPage, action: ActionOf<'pdf'>): Promise<string> {
  const capture = await new PageCapture(page.cdp, page.reader).take(
    { kind: 'pdf', paper: action.format, landscape: action.landscape, printBackground: true, scale: action.scale },
    Math.max(1, actionTime(page)),
  );
  return dataUri(capture);
}

/** The page's HTML as it is now, and where it is (within the render's size limit). */
export async function scrape(page: ActionPage): Promise<{ url: string; html: string }> {
  const read = await page.reader.main(page.maxBodyBytes, false);
  return { url: read.url, html: read.html };
}
