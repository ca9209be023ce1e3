import { expect } from 'chai';
import { formatReport } from '../../scripts/bench/load/report.js';
import { runLoad } from '../../scripts/bench/load/run.js';
import { testDatabases } from '../helpers/databases.js';

/**
 * The load run of `scripts/bench/load.ts`, smaller: mixed plain and browser requests over v1, v2
 * and extended, several keys and plans, slow, erroring, walled and proxied targets, a pool of two
 * sessions retired and replaced under load. What must hold afterwards is checked by the run itself
 * (no 5xx, credits = Σ Svc-credits-cost of the 200s, no leases, no Chromium beyond the pool, pool
 * memory within 20% of its warm-up figure); throughput is never judged.
 */
for (const database of testDatabases()) {
  describe(`load: mixed requests against a warm pool (${database.name})`, function () {
    this.timeout(120_000);

    it('150 mixed requests leave no 5xx, exact credits, no leases and no Chromium beyond the pool', async () => {
      const report = await runLoad({
        count: 150,
        concurrency: 6,
        poolSize: 2,
        browserShare: 0.15,
        maxPages: 10,
        databaseUrl: database.freshUrl(),
        timeCapMs: 100_000,
      });
      const text = formatReport(report);
      const failed = report.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
      if (failed.length > 0 || process.env.LOAD_REPORT) console.log(text);
      expect(failed, text).to.deep.equal([]);
    });
  });
}
