import { TargetTooLargeError } from '../../egress/fetch-errors.js';
import { InvalidSelectorError } from '../engine-errors.js';
import type { IframeRecord } from '../fetcher.js';
import { CdpError, type CdpSession } from './cdp-session.js';

export interface PageContent {
  html: string;
  text: string | null;
  url: string;
}

interface FrameTree {
  frame: { id: string; url: string; loaderId: string };
}

const MAX_IFRAMES = 20;
const OBJECT_GROUP = 'scrapegate-reader';

/**
 * Runs in a fresh isolated world, where the page's own objects are not reachable: a page may
 * redefine `outerHTML`, `innerText`, `JSON` or `Promise` in its own world, and none of that is
 * seen here. The length is measured in the browser before anything is transferred, so a page
 * that builds a DOM of hundreds of MB never reaches this process's heap.
 */
function readExpression(maxChars: number, wantsText: boolean): string {
  return `(() => {
  const max = ${maxChars};
  const root = document.documentElement;
  let html = '';
  try { html = root ? root.outerHTML : ''; } catch (e) { return { tooLarge: -1 }; }
  if (html.length > max) return { tooLarge: html.length };
  let text = null;
  if (${wantsText} && document.body) {
    try { text = document.body.innerText; } catch (e) { return { tooLarge: -1 }; }
    if (text.length > max) return { tooLarge: text.length };
  }
  return { html, text, url: location.href };
})()`;
}

type ReadResult = PageContent | { tooLarge: number };

/**
 * Reads documents of a render through DevTools: the main frame's and each top-level iframe's
 * (out-of-process ones through their own attached sessions), never through the page's objects.
 */
export class PageReader {
  /** The main frame's isolated world, kept while its document lives (a navigation ends it). */
  private mainWorld: number | undefined;
  /** The isolated world made for the main frame's last committed document (prepareMain). */
  private preparedWorld: Promise<number> | undefined;

  constructor(
    private readonly cdp: CdpSession,
    private readonly mainFrameId: string,
  ) {}

  /**
   * Creates the main document's isolated world as soon as the document is committed, while the
   * page still loads, so that reading it once loaded is one round trip. Called again for each
   * document the main frame commits.
   */
  prepareMain(): void {
    const world = this.world(undefined, this.mainFrameId);
    world.catch(() => undefined);
    this.preparedWorld = world;
  }

  /** The main document; TargetTooLargeError past `maxChars` (its HTML, or its text when asked for). */
  async main(maxChars: number, wantsText: boolean): Promise<PageContent> {
    const prepared = this.preparedWorld;
    let read: ReadResult | undefined;
    if (prepared) {
      // A world made for a document that has been replaced since is gone with it: a new one then.
      read = await prepared.then((world) => this.readIn(undefined, world, maxChars, wantsText)).catch((err: unknown) => {
        if (err instanceof CdpError) return undefined;
        throw err;
      });
    }
    read ??= await this.read(undefined, this.mainFrameId, maxChars, wantsText);
    if ('tooLarge' in read) throw new TargetTooLargeError(`the rendered page exceeds ${maxChars} characters`);
    return read;
  }

  /**
   * Whether `selector` matches in the main document now, asked from the isolated world (the
   * page's `querySelector` may be redefined to lie or to spin). InvalidSelectorError when Chrome
   * does not take it as CSS.
   */
  async matches(selector: string): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      this.mainWorld ??= await this.world(undefined, this.mainFrameId);
      try {
        const r = await this.cdp.send<{ result: { value?: unknown }; exceptionDetails?: { exception?: { className?: string } } }>('Runtime.evaluate', {
          expression: `document.querySelector(${JSON.stringify(selector)}) !== null`,
          contextId: this.mainWorld,
          returnByValue: true,
        });
        if (r.exceptionDetails) {
          if (r.exceptionDetails.exception?.className === 'DOMException') throw new InvalidSelectorError(`"${selector}" is not a valid CSS selector`);
          return false;
        }
        return r.result.value === true;
      } catch (err) {
        // The page navigated: its documents' worlds went with it. A new one, once.
        if (!(err instanceof CdpError) || attempt > 0) throw err;
        this.mainWorld = undefined;
      }
    }
  }

  /**
   * The first element matching `selector`, as a box in page coordinates (scrolled into view, so
   * lazy content is drawn), asked from the isolated world; null when none matches or it has no size.
   */
  async box(selector: string): Promise<{ x: number; y: number; width: number; height: number } | null> {
    const world = await this.world(undefined, this.mainFrameId);
    const r = await this.cdp.send<{ result: { value?: unknown }; exceptionDetails?: { exception?: { className?: string } } }>('Runtime.evaluate', {
      expression: `(() => {
  const e = document.querySelector(${JSON.stringify(selector)});
  if (!e) return null;
  e.scrollIntoView({ block: 'start', inline: 'start' });
  const r = e.getBoundingClientRect();
  return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
})()`,
      contextId: world,
      returnByValue: true,
    });
    if (r.exceptionDetails) {
      if (r.exceptionDetails.exception?.className === 'DOMException') throw new InvalidSelectorError(`"${selector}" is not a valid CSS selector`, 'screenshot_selector');
      return null;
    }
    const v = r.result.value as { x: number; y: number; width: number; height: number } | null | undefined;
    if (!v || !(v.width >= 1) || !(v.height >= 1)) return null;
    return v;
  }

  /** The main frame's loader: which navigation the window now shows. */
  async mainLoaderId(): Promise<string> {
    const tree = await this.cdp.send<{ frameTree: FrameTree }>('Page.getFrameTree');
    return tree.frameTree.frame.loaderId;
  }

  /**
   * The HTML of each top-level iframe (at most 20), sharing `budgetChars` between them: a frame
   * that does not fit is listed with empty HTML, and a frame gone meanwhile likewise. The frames
   * are the page's iframe elements, found from an isolated world: DevTools' frame tree leaves
   * out the out-of-process (cross-site) ones.
   */
  async iframes(budgetChars: number): Promise<IframeRecord[]> {
    const world = await this.world(undefined, this.mainFrameId);
    const list = await this.cdp.send<{ result: { objectId?: string } }>('Runtime.evaluate', {
      expression: `Array.from(document.querySelectorAll('iframe')).slice(0, ${MAX_IFRAMES})`,
      contextId: world,
      objectGroup: OBJECT_GROUP,
    });
    try {
      if (!list.result.objectId) return [];
      const { result } = await this.cdp.send<{ result: Array<{ name: string; value?: { objectId?: string } }> }>('Runtime.getProperties', {
        objectId: list.result.objectId,
        ownProperties: true,
      });
      const elements = result.filter((p) => /^\d+$/.test(p.name) && p.value?.objectId).map((p) => p.value!.objectId!);
      let left = budgetChars;
      const out: IframeRecord[] = [];
      for (const objectId of elements) {
        const frame = await this.describe(objectId);
        let html = '';
        if (frame.frameId) {
          try {
            const read = await this.read(this.cdp.frameSession(frame.frameId), frame.frameId, left, false);
            if (!('tooLarge' in read)) html = read.html;
          } catch {
            // a frame that went away while we looked
          }
        }
        left -= html.length;
        out.push({ src: frame.src, html });
      }
      return out;
    } finally {
      this.cdp.post('Runtime.releaseObjectGroup', { objectGroup: OBJECT_GROUP });
    }
  }

  /** An iframe element's content frame and its `src` as the browser resolved it. */
  private async describe(objectId: string): Promise<{ frameId: string | undefined; src: string }> {
    const [node, src] = await Promise.all([
      this.cdp.send<{ node: { frameId?: string } }>('DOM.describeNode', { objectId }),
      this.cdp.send<{ result: { value?: unknown } }>('Runtime.callFunctionOn', {
        objectId,
        functionDeclaration: 'function () { return String(this.src); }',
        returnByValue: true,
      }),
    ]);
    return { frameId: node.node.frameId, src: typeof src.result.value === 'string' ? src.result.value : '' };
  }

  private async world(sessionId: string | undefined, frameId: string): Promise<number> {
    const world = await this.cdp.sendTo<{ executionContextId: number }>(sessionId, 'Page.createIsolatedWorld', {
      frameId,
      worldName: 'scrapegate-reader',
      grantUniveralAccess: false,
    });
    return world.executionContextId;
  }

  private async read(sessionId: string | undefined, frameId: string, maxChars: number, wantsText: boolean): Promise<ReadResult> {
    return this.readIn(sessionId, await this.world(sessionId, frameId), maxChars, wantsText);
  }

  private async readIn(sessionId: string | undefined, world: number, maxChars: number, wantsText: boolean): Promise<ReadResult> {
    const evaluated = await this.cdp.sendTo<{ result: { value?: ReadResult }; exceptionDetails?: unknown }>(sessionId, 'Runtime.evaluate', {
      expression: readExpression(Math.max(0, Math.floor(maxChars)), wantsText),
      contextId: world,
      returnByValue: true,
    });
    const value = evaluated.result.value;
    if (evaluated.exceptionDetails || !value || typeof value !== 'object') return { tooLarge: -1 };
    return value;
  }
}
