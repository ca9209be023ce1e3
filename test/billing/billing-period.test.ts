import { expect } from 'chai';
import { addMonths, currentPeriod } from '../../src/billing/billing-period.js';

describe('billing periods', () => {
  it('steps calendar months in UTC and clamps to the month end', () => {
    expect(new Date(addMonths(Date.UTC(2026, 0, 31, 12), 1)).toISOString()).to.equal('2026-02-28T12:00:00.000Z');
    expect(new Date(addMonths(Date.UTC(2026, 10, 22), 1)).toISOString()).to.equal('2026-12-22T00:00:00.000Z');
    expect(new Date(addMonths(Date.UTC(2026, 11, 5), 1)).toISOString()).to.equal('2027-01-05T00:00:00.000Z');
  });

  it('finds the period containing a time, stepping forward from one that ended', () => {
    const start = Date.UTC(2026, 0, 10);
    const end = addMonths(start, 1);
    expect(currentPeriod(start, end, start + 1)).to.deep.equal({ start, end });
    expect(currentPeriod(start, end, Date.UTC(2026, 2, 15))).to.deep.equal({ start: Date.UTC(2026, 2, 10), end: Date.UTC(2026, 3, 10) });
  });
});
