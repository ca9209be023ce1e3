import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A key's signing secret: `whsec_` + base64 of 32 random bytes, as Standard Webhooks spells one. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/**
 * The bytes Standard Webhooks signs with: the base64 after `whsec_`. (Firecrawl's signature is
 * keyed with the whole string instead, `whsec_` included, as its verifiers do.)
 */
export function standardSigningKey(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(PREFIX.length), 'base64');
}
