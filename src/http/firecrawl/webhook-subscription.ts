import { FetchError } from '../../egress/fetch-errors.js';
import type { operations } from '../../generated/firecrawl-types.js';
import type { JobEventType, WebhookPolicy, WebhookSubscription } from '../../jobs/job-ports.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';

type Webhook = NonNullable<operations['firecrawlBatchScrapeStart']['requestBody']['content']['application/json']['webhook']>;
const EVERY_EVENT: JobEventType[] = ['started', 'page', 'completed', 'failed'];

/** A webhook as the submission gave it, its URL judged by the webhook policy (a refusal is a 400). */
export async function subscription(webhook: Webhook, policy: WebhookPolicy | undefined): Promise<WebhookSubscription> {
  const given = typeof webhook === 'string' ? { url: webhook } : webhook;
  if (!policy) throw new InvalidValueError('webhook', 'webhooks are not available on this server', 'value_error.not_supported');
  try {
    await policy.check(given.url);
  } catch (err) {
    // A name that does not resolve is the caller's to fix, as a refusal is.
    if (err instanceof FetchError) throw new InvalidValueError('webhook', `the webhook URL cannot be called: ${err.message}`, 'value_error.webhook');
    throw err;
  }
  return { url: given.url, headers: given.headers ?? {}, metadata: given.metadata ?? {}, events: given.events && given.events.length > 0 ? [...new Set(given.events)] : EVERY_EVENT };
}

