import { ExtractRulesError } from './extract-rules-error.js';

/**
 * Steps (nodes visited, parents, children and siblings looked up) one extraction may take: one to
 * three seconds' work (20 to 40 million steps a second were measured on hostile pages). The bench's 1,000 list items
 * take 38,000 steps, and a hundred rules each walking a 10 MB page of 250,000 nodes about 25
 * million. A hostile page makes rules quadratic instead: the text of each of 10,000 nested
 * elements is a walk over all the elements below it, `p div` walks from each div up to the root.
 * The cap ends that with a 422 naming the rule, rather than holding a worker (or the event loop,
 * for a page small enough to run inline) for minutes.
 */
export const MAX_WORK_STEPS = 50_000_000;

/** Counts one extraction's steps; the walks and the selector engine's adapter spend them. */
export class WorkMeter {
  private steps = 0;
  /** The rule being applied: the one the error names. */
  path: Array<string | number> = [];

  constructor(private readonly limit = MAX_WORK_STEPS) {}

  spend(steps = 1): void {
    this.steps += steps;
    if (this.steps > this.limit) {
      throw ExtractRulesError.of(
        this.path,
        `applying the rules to this page takes more than ${this.limit.toLocaleString('en')} steps; use narrower selectors`,
        'value_error.extract_rules.too_costly',
      );
    }
  }

  get spent(): number {
    return this.steps;
  }
}
