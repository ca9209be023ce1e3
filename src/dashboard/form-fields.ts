import type { KeyRecord } from '../accounts/key-record.js';

/** A urlencoded body as express.urlencoded({ extended: false }) reads it. */
export type FormBody = Record<string, string | string[] | undefined>;

/** One field's text; a field sent twice counts as not sent (nothing guesses which one was meant). */
export function field(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as FormBody)[name];
  return typeof value === 'string' ? value : undefined;
}

/** A number field: empty is absent; digits are a number; anything else is passed on for the schema to name as wrong. */
function numeric(text: string | undefined): number | string | undefined {
  const t = text?.trim();
  if (t === undefined || t === '') return undefined;
  return /^-?\d{1,15}$/.test(t) ? Number(t) : t;
}

/** One address or range per line (commas too); blank lines dropped. */
function ipList(text: string | undefined): string[] {
  return (text ?? '').split(/[\n,]/).map((s) => s.trim()).filter((s) => s !== '');
}

/** The create form as the admin API's NewKey body (checked by that operation's schema next). */
export function newKeyBody(body: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { plan: field(body, 'plan') ?? '' };
  const label = field(body, 'label')?.trim();
  if (label) out.label = label;
  const credits = numeric(field(body, 'credits'));
  if (credits !== undefined) out.credits = credits;
  const concurrency = numeric(field(body, 'max_concurrency'));
  if (concurrency !== undefined) out.max_concurrency = concurrency;
  const ips = ipList(field(body, 'allowed_ips'));
  if (ips.length > 0) out.allowed_ips = ips;
  return out;
}

/**
 * The change form as the admin API's KeyChange body: only what differs from the key as shown
 * (the form always sends every field, and a plan given again would reset the key's allowance).
 */
export function keyChangeBody(body: unknown, key: KeyRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Compared as sent: the form shows the label as it is, spaces included, so an untouched one is unchanged.
  const label = field(body, 'label');
  if (label !== undefined && label !== (key.label ?? '')) out.label = label.trim() === '' ? null : label;
  const plan = field(body, 'plan');
  if (plan !== undefined && plan !== key.plan) out.plan = plan;
  const concurrencyText = field(body, 'max_concurrency');
  if (concurrencyText !== undefined) {
    const concurrency = numeric(concurrencyText) ?? null;
    if (concurrency !== key.max_concurrency) out.max_concurrency = concurrency;
  }
  const ipsText = field(body, 'allowed_ips');
  if (ipsText !== undefined) {
    const ips = ipList(ipsText);
    if (ips.join('\n') !== key.allowed_ips.join('\n')) out.allowed_ips = ips;
  }
  const add = numeric(field(body, 'add_credits'));
  if (add !== undefined) out.add_credits = add;
  const remaining = numeric(field(body, 'credits_remaining'));
  if (remaining !== undefined) out.credits_remaining = remaining;
  return out;
}

export function rotateBody(body: unknown): Record<string, unknown> {
  const grace = numeric(field(body, 'grace_seconds'));
  return grace === undefined ? {} : { grace_seconds: grace };
}
