import type { Document } from 'domhandler';
import { compileQuery, eachMatch } from '../extract/css-query.js';
import { WorkMeter } from '../extract/work-meter.js';

export interface AttributeSelector {
  selector: string;
  attribute: string;
}

/** Firecrawl's `attributes` format: each selector's matches' values of the attribute, in page order. */
export interface AttributeValues extends AttributeSelector {
  values: string[];
}

/** Values one selector yields at most. */
export const MAX_ATTRIBUTE_VALUES = 10_000;
/**
 * Characters of values all the selectors yield together: 10,000 values of a page's longest
 * attribute (a data: URI, an inline JSON blob) each would otherwise make an answer of gigabytes.
 */
export const MAX_ATTRIBUTE_CHARS = 10 * 1024 * 1024;
/** Steps the attribute selectors may take on one page together (see extract/work-meter.ts). */
const ATTRIBUTE_STEPS = 20_000_000;

/** The values read, and whether MAX_ATTRIBUTE_CHARS stopped the reading before the page's end. */
export interface PageAttributes {
  attributes: AttributeValues[];
  truncated: boolean;
}

/**
 * The values of each `{selector, attribute}` on the page as parsed (before any tag filtering),
 * elements without the attribute left out. Attribute names are matched without regard to case, as
 * HTML's are. The selectors were checked at submission; their walks are metered, and a page on
 * which they take too long throws ExtractRulesError (too costly: refunded). Once the values reach
 * `maxChars` in all, no further value is taken (none is cut in two): the later selectors have none.
 */
export function pageAttributes(document: Document, selectors: readonly AttributeSelector[], maxChars = MAX_ATTRIBUTE_CHARS): PageAttributes {
  const meter = new WorkMeter(ATTRIBUTE_STEPS);
  let chars = 0;
  let truncated = false;
  const attributes = selectors.map(({ selector, attribute }, i) => {
    meter.path = ['attributes', i];
    const name = attribute.toLowerCase();
    const values: string[] = [];
    if (truncated) return { selector, attribute, values };
    eachMatch({ test: compileQuery(selector, false, meter).test, scope: undefined, siblings: false, self: false, meter }, document, (element) => {
      const value = element.attribs[name];
      if (value === undefined) return true;
      if (chars + value.length > maxChars) {
        truncated = true;
        return false;
      }
      chars += value.length;
      values.push(value);
      return values.length < MAX_ATTRIBUTE_VALUES;
    });
    return { selector, attribute, values };
  });
  return { attributes, truncated };
}
