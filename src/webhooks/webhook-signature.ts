import { createHmac } from 'node:crypto';
import { standardSigningKey } from './webhook-secret.js';

/** The headers that sign one attempt, both ways; `timestamp` in seconds, new on every attempt. */
export interface SignedHeaders {
  'x-firecrawl-signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Firecrawl's `sha256=<hex HMAC-SHA256(body)>` keyed with the secret string as shown, and Standard
 * Webhooks' `v1,<base64 HMAC-SHA256("{id}.{timestamp}.{body}")>` keyed with the secret's decoded
 * bytes: a receiver verifies whichever its library knows. The body is signed as sent, byte for byte.
 */
export function signedHeaders(secret: string, webhookId: string, timestamp: number, body: string): SignedHeaders {
  const firecrawl = createHmac('sha256', secret).update(body, 'utf8').digest('hex');
  const standard = createHmac('sha256', standardSigningKey(secret)).update(`${webhookId}.${timestamp}.${body}`, 'utf8').digest('base64');
  return {
    'x-firecrawl-signature': `sha256=${firecrawl}`,
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${standard}`,
  };
}
