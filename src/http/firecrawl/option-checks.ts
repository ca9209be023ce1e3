import { ExtractRulesError } from '../../content/extract/extract-rules-error.js';
import type { FirecrawlOptions } from '../../jobs/firecrawl/firecrawl-options.js';
import type { Answers } from '../../scrape/answers/answers.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';

/**
 * What only a worker can check of the options, checked at submission so that no item fails on
 * it: the extract_rules, and that every includeTags, excludeTags and attributes selector is one the service
 * can run (compiled as rules are, off the event loop, under the caller's key).
 */
export async function checkInWorkers(answers: Answers, options: FirecrawlOptions, keyHash: string): Promise<void> {
  if (options.extractRules !== null) await answers.rules(options.extractRules, keyHash);
  const attributes = (options.formats.attributes ?? []).map((a) => a.selector);
  for (const [param, selectors] of [['includeTags', options.includeTags], ['excludeTags', options.excludeTags], ['formats.attributes', attributes]] as const) {
    if (selectors.length === 0) continue;
    const rules = Object.fromEntries(selectors.map((selector, i) => [String(i), { selector, type: 'item', output: 'text' }]));
    try {
      await answers.rules(JSON.stringify(rules), keyHash);
    } catch (err) {
      if (!(err instanceof ExtractRulesError)) throw err;
      const [first] = err.issues;
      const at = typeof first?.path[0] === 'string' ? `.${first.path[0]}` : '';
      throw new InvalidValueError(`${param}${at}`, first?.msg ?? 'not a CSS selector the service can run', 'value_error.selector');
    }
  }
}
