import { isTag, type Document, type Element, type ParentNode } from 'domhandler';
import { removeElement } from 'domutils';
import { compileQuery, eachMatch } from '../extract/css-query.js';
import { WorkMeter } from '../extract/work-meter.js';
import { DROPPED_ROLES, DROPPED_TAGS } from '../markdown/main-content.js';

/** Never content, in any format: what runs, styles or stands in for script. */
const NEVER = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'base']);

/** Steps the callers' selectors may take on one page (see extract/work-meter.ts). */
const SELECTOR_STEPS = 20_000_000;

export interface TagChoice {
  includeTags: string[];
  excludeTags: string[];
  removeBase64Images: boolean;
}

/** Whether `element` lies inside one of `tags` (below the document). */
function inside(element: Element, tags: ReadonlySet<string>): boolean {
  if (tags.size === 0) return false;
  for (let at = element.parent; at !== null && isTag(at); at = at.parent) if (tags.has(at.name)) return true;
  return false;
}

function collect(root: ParentNode, test: (element: Element) => boolean, meter: WorkMeter): Element[] {
  const found: Element[] = [];
  eachMatch({ test, scope: undefined, siblings: false, self: false, meter }, root, (element) => {
    found.push(element);
  });
  return found;
}

/**
 * Takes out of the parsed page what is never content (scripts, styles…), what `excludeTags`
 * match, and images inlined as data: URIs when asked. Returns the elements `includeTags` match
 * (the outermost of nested matches), or undefined when none were given: the content is then the
 * whole page. Selectors are compiled here, in the worker; their walks are metered, and a page on
 * which they would take too long throws (the caller then ignores them).
 */
export function filterTags(document: Document, choice: TagChoice): Element[] | undefined {
  const meter = new WorkMeter(SELECTOR_STEPS);
  const doomed = collect(document, (e) => NEVER.has(e.name) || (choice.removeBase64Images && e.name === 'img' && (e.attribs.src ?? '').trimStart().startsWith('data:')), meter);
  for (const selector of choice.excludeTags) doomed.push(...collect(document, compileQuery(selector, false, meter).test, meter));
  for (const element of doomed) removeElement(element);
  if (choice.includeTags.length === 0) return undefined;
  const kept = new Set<Element>();
  for (const selector of choice.includeTags) for (const element of collect(document, compileQuery(selector, false, meter).test, meter)) kept.add(element);
  const outermost = [...kept].filter((element) => {
    for (let at = element.parent; at !== null && isTag(at); at = at.parent) if (kept.has(at)) return false;
    return true;
  });
  // Document order, whichever selector found them.
  const order = new Map(collect(document, (e) => kept.has(e), meter).map((e, i) => [e, i]));
  return outermost.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}

/** Takes out the page's chrome (navigation, banners, footers, asides), as only_main_content does for the markdown. */
export function dropChrome(root: ParentNode): void {
  const meter = new WorkMeter(SELECTOR_STEPS);
  const chrome = collect(
    root,
    (element) => {
      const keptInsideTag = DROPPED_TAGS.get(element.name);
      if (keptInsideTag !== undefined && !inside(element, keptInsideTag)) return true;
      const role = element.attribs.role?.trim().toLowerCase();
      const keptInsideRole = role === undefined ? undefined : DROPPED_ROLES.get(role);
      return keptInsideRole !== undefined && !inside(element, keptInsideRole);
    },
    meter,
  );
  for (const element of chrome) if (element.parent !== null) removeElement(element);
}
