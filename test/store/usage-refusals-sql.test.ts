import { expect } from 'chai';
import { UsageRefusalsSql } from '../../src/store/usage-refusals-sql.js';
import { testDatabases } from '../helpers/databases.js';
import { useMigratedDatabase } from '../helpers/migrated-database.js';

for (const database of testDatabases()) {
  describe(`refusal counts in SQL (${database.name})`, () => {
    const m = useMigratedDatabase(database);

    it('adds each flush to what is stored, over more counts than one statement takes', async () => {
      const sql = new UsageRefusalsSql(m.db);
      const counts = Array.from({ length: 1_200 }, (_, i) => ({ apiKeyId: 1 + (i % 400), day: `2026-11-${String(20 + Math.floor(i / 400)).padStart(2, '0')}`, status: 409, count: i + 1 }));
      await sql.add(counts);
      await sql.add([...counts].reverse());
      await sql.add([{ apiKeyId: 7, day: '2026-11-21', status: 403, count: 5 }]);
      const seven = await sql.byDay(7, '2026-11-20', '2026-11-22');
      expect(seven.sort((a, b) => a.day.localeCompare(b.day) || a.status - b.status)).to.deep.equal([
        { apiKeyId: 7, day: '2026-11-20', status: 409, count: 2 * 7 },
        { apiKeyId: 7, day: '2026-11-21', status: 403, count: 5 },
        { apiKeyId: 7, day: '2026-11-21', status: 409, count: 2 * 407 },
        { apiKeyId: 7, day: '2026-11-22', status: 409, count: 2 * 807 },
      ]);
      expect(await sql.byDay(7, '2026-11-21', '2026-11-21')).to.have.length(2);
    });
  });
}
