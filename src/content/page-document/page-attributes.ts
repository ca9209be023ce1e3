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
/** Steps the attribute selectors may take on one page together (see extract/work-meter.ts). */
const ATTRIBUTE_STEPS = 20_000_000;

/**
 * The values of each `{selector, attribute}` on the page as parsed (before any tag filtering),
 * elements without the attribute left out. Attribute names are matched without regard to case, as
 * HTML's are. The selectors were checked at submission; their walks are metered, and a page on
 * which they take too long throws ExtractRulesError (too costly: refunded).
 */
export function pageAttributes(document: Document, selectors: readonly AttributeSelector[]): AttributeValues[] {
  const meter = new WorkMeter(ATTRIBUTE_STEPS);
  return selectors.map(({ selector, attribute }, i) => {
    meter.path = ['attributes', i];
    const name = attribute.toLowerCase();
    const values: string[] = [];
    eachMatch({ test: compileQuery(selector, false, meter).test, scope: undefined, siblings: false, self: false, meter }, document, (element) => {
      const value = element.attribs[name];
      if (value !== undefined) values.push(value);
      return values.length < MAX_ATTRIBUTE_VALUES;
    });
    return { selector, attribute, values };
  });
}
