/** Adds calendar months in UTC, clamping to the month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(epochMs: number, months: number): number {
  const d = new Date(epochMs);
  const targetMonth = d.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), targetMonth + 1, 0)).getUTCDate();
  return Date.UTC(
    d.getUTCFullYear(),
    targetMonth,
    Math.min(d.getUTCDate(), lastDay),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds(),
  );
}

/** The monthly period containing `now`, stepping forward from a period that has ended. */
export function currentPeriod(periodStart: number, periodEnd: number, now: number): { start: number; end: number } {
  let start = periodStart;
  let end = periodEnd;
  while (now >= end) {
    start = end;
    end = addMonths(end, 1);
  }
  return { start, end };
}
