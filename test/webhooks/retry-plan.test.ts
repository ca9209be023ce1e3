import { expect } from 'chai';
import { nextAttemptAt, retryAfterMs } from '../../src/webhooks/retry-plan.js';

const S = 1000;

describe('webhook retry plan', () => {
  const schedule = [0, 60 * S, 300 * S, 1800 * S];
  const created = 1_000_000;

  it('runs each attempt at its time after the event, with at most 10 % of the gap as jitter, then gives up', () => {
    expect(nextAttemptAt(schedule, 1, created, created + 500, undefined, () => 0)).to.equal(created + 60 * S);
    expect(nextAttemptAt(schedule, 1, created, created + 500, undefined, () => 0.999)).to.be.within(created + 60 * S, created + 66 * S);
    expect(nextAttemptAt(schedule, 2, created, created + 61 * S, undefined, () => 0.5)).to.equal(created + 300 * S + 12 * S);
    expect(nextAttemptAt(schedule, 4, created, created + 2000 * S, undefined)).to.equal(undefined);
  });

  it('never schedules in the past: a late attempt runs now', () => {
    expect(nextAttemptAt(schedule, 1, created, created + 100 * S, undefined, () => 0)).to.equal(created + 100 * S);
  });

  it('lets a receiver\'s Retry-After set the next attempt, but not past the schedule\'s end', () => {
    expect(nextAttemptAt(schedule, 1, created, created, 7 * S)).to.equal(created + 7 * S);
    expect(nextAttemptAt(schedule, 4, created, created, 7 * S)).to.equal(undefined);
  });

  it('reads Retry-After as seconds or an HTTP date, clamped to [1 s, 24 h]', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(retryAfterMs('5', now)).to.equal(5 * S);
    expect(retryAfterMs(' 0 ', now)).to.equal(S);
    expect(retryAfterMs('999999', now)).to.equal(86_400 * S);
    expect(retryAfterMs('Thu, 26 Nov 2026 12:00:30 GMT', now)).to.equal(30 * S);
    expect(retryAfterMs('Wed, 25 Nov 2026 12:00:00 GMT', now)).to.equal(S);
    expect(retryAfterMs('Fri, 25 Dec 2026 12:00:00 GMT', now)).to.equal(86_400 * S);
    for (const bad of [undefined, '', 'soon', '-5', '1.5', '12345678901']) expect(retryAfterMs(bad, now), String(bad)).to.equal(undefined);
  });
});
