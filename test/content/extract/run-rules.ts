import { expect } from 'chai';
import { ExtractRulesError } from '../../../src/content/extract/extract-rules-error.js';
import { parseExtractRules } from '../../../src/content/extract/extract-rules.js';
import { extract, type ExtractedObject, type ExtractLimits } from '../../../src/content/extract/extract.js';

/** Parses the rules (a value, JSON-encoded first) and applies them to the page. */
export const run = (html: string, rules: unknown, limits?: Partial<ExtractLimits>): ExtractedObject =>
  extract(html, parseExtractRules(JSON.stringify(rules)), limits);

/** The ExtractRulesError the extraction throws; fails when it throws nothing. */
export function refusal(html: string, rules: unknown, limits?: Partial<ExtractLimits>): ExtractRulesError {
  try {
    run(html, rules, limits);
  } catch (err) {
    expect(err).to.be.instanceOf(ExtractRulesError);
    return err as ExtractRulesError;
  }
  expect.fail('the extraction was not refused');
}
