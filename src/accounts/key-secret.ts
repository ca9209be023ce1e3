import { randomBytes } from 'node:crypto';
import { hashApiKey } from '../billing/billing.js';

const KEY_PREFIX = 'sg_';
const DISPLAY_PREFIX_LENGTH = 10;

/** A new secret (192 bits), the SHA-256 it is stored as, and the prefix it is shown by. */
export function newSecret(): { key: string; hash: string; prefix: string } {
  const key = KEY_PREFIX + randomBytes(24).toString('base64url');
  return { key, hash: hashApiKey(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}
