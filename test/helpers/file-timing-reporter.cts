import Mocha = require('mocha');

const { Spec } = Mocha.reporters;
const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_RUN_END } = Mocha.Runner.constants;

/**
 * Mocha's spec reporter, then the files that took longest: the suite's budget (20 minutes in CI)
 * is spent by files, hooks included, so that is what the end of the run shows.
 */
class FileTimingReporter extends Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const started = new Map<Mocha.Suite, number>();
    const spent = new Map<string, number>();
    runner.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (suite.file && suite.parent?.root) started.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite: Mocha.Suite) => {
      const at = started.get(suite);
      if (at === undefined || !suite.file) return;
      const file = suite.file.replace(`${process.cwd()}/`, '');
      spent.set(file, (spent.get(file) ?? 0) + Date.now() - at);
    });
    runner.once(EVENT_RUN_END, () => {
      const slowest = [...spent].sort((a, b) => b[1] - a[1]).slice(0, 25);
      const total = [...spent.values()].reduce((sum, ms) => sum + ms, 0);
      console.log(`\n  time by file (top ${slowest.length} of ${spent.size}, ${(total / 60_000).toFixed(1)} min in all):`);
      for (const [file, ms] of slowest) console.log(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
    });
  }
}

export = FileTimingReporter;
