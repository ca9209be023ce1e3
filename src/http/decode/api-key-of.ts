import { InvalidValueError } from '../../scrape/invalid-value-error.js';

/**
 * The key a request carries, in the `x-api-key` header or the `x-api-key` parameter (an empty
 * one counts as absent). Both, and different, is ambiguous: refused, naming both.
 */
export function apiKeyOf(header: string | undefined, param: string | undefined): string {
  const fromHeader = header || undefined;
  const fromParam = param || undefined;
  if (fromHeader && fromParam && fromHeader !== fromParam) {
    const msg = 'the x-api-key header and the x-api-key parameter differ: send the key once';
    throw InvalidValueError.of([
      { param: 'x-api-key', msg, type: 'value_error.ambiguous', place: 'header' },
      { param: 'x-api-key', msg, type: 'value_error.ambiguous' },
    ]);
  }
  const key = fromHeader ?? fromParam;
  if (!key) throw new InvalidValueError('x-api-key', 'field required (or send the x-api-key header)', 'value_error.missing');
  return key;
}
