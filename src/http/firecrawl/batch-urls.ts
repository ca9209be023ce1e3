import type { TargetPolicy } from '../../egress/target-policy/target-policy.js';
import { urlRefusal } from '../../egress/target-policy/url-refusal.js';

/** URLs judged between two turns of the event loop: 50,000 URLs take it 50 to 200 ms, in slices of a few. */
const SLICE = 1_000;

/**
 * A batch's URLs, sorted into those its items will scrape and those refused (in their order, as
 * sent). Judged a slice at a time, yielding to the event loop between slices, so that a batch of
 * 50,000 URLs never holds the other callers' requests for more than a few milliseconds.
 */
export async function sortUrls(urls: string[], policy: TargetPolicy): Promise<{ valid: string[]; invalid: Array<{ url: string; index: number; why: string }> }> {
  const valid: string[] = [];
  const invalid: Array<{ url: string; index: number; why: string }> = [];
  for (let index = 0; index < urls.length; index++) {
    if (index > 0 && index % SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const url = urls[index];
    const why = urlRefusal(url, policy);
    if (why === undefined) valid.push(url);
    else invalid.push({ url, index, why });
  }
  return { valid, invalid };
}
