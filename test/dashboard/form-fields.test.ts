import { expect } from 'chai';
import type { KeyRecord } from '../../src/accounts/key-record.js';
import { field, keyChangeBody, newKeyBody, rotateBody } from '../../src/dashboard/form-fields.js';

const key: KeyRecord = {
  id: 7, prefix: 'sg_abcdefg', label: 'crawler', plan: 'startup', credits_total: 1000, credits_remaining: 400, max_concurrency: 5,
  allowed_ips: ['203.0.113.0/24'], period_start: '2026-11-01T00:00:00.000Z', period_end: '2026-12-01T00:00:00.000Z',
  created_at: '2026-11-01T00:00:00.000Z', revoked_at: null, previous_secret_expires_at: null,
};
const unchanged = { label: 'crawler', plan: 'startup', max_concurrency: '5', allowed_ips: '203.0.113.0/24', add_credits: '', credits_remaining: '' };

describe('dashboard forms as admin API bodies (form-fields)', () => {
  it('reads one value per field; a field sent twice counts as not sent', () => {
    expect(field({ a: 'x', b: ['1', '2'] }, 'a')).to.equal('x');
    expect(field({ a: 'x', b: ['1', '2'] }, 'b')).to.equal(undefined);
    expect(field(undefined, 'a')).to.equal(undefined);
  });

  it('makes a NewKey body, leaving empty fields to the plan and wrong numbers to the schema to name', () => {
    expect(newKeyBody({ plan: 'free', label: ' ', credits: '', max_concurrency: '', allowed_ips: '' })).to.deep.equal({ plan: 'free' });
    expect(newKeyBody({ plan: 'free', label: ' bot ', credits: '50', max_concurrency: '2', allowed_ips: '127.0.0.1\r\n, ::1\n\n' })).to.deep.equal({
      plan: 'free', label: 'bot', credits: 50, max_concurrency: 2, allowed_ips: ['127.0.0.1', '::1'],
    });
    expect(newKeyBody({ plan: 'free', credits: '1.5' })).to.deep.equal({ plan: 'free', credits: '1.5' });
  });

  it('makes a KeyChange body of only what differs from the key shown: a plan given again would reset its allowance', () => {
    expect(keyChangeBody(unchanged, key)).to.deep.equal({});
    expect(keyChangeBody({ ...unchanged, plan: 'business', add_credits: '10' }, key)).to.deep.equal({ plan: 'business', add_credits: 10 });
    expect(keyChangeBody({ ...unchanged, label: '', max_concurrency: '', allowed_ips: '' }, key)).to.deep.equal({ label: null, max_concurrency: null, allowed_ips: [] });
    expect(keyChangeBody({ ...unchanged, credits_remaining: '0' }, key)).to.deep.equal({ credits_remaining: 0 });
  });

  it('reads a rotation grace, or leaves the default to the schema', () => {
    expect(rotateBody({ grace_seconds: '3600' })).to.deep.equal({ grace_seconds: 3600 });
    expect(rotateBody({})).to.deep.equal({});
  });
});
