import type { WebhookPolicy } from '../jobs/job-ports.js';
import { EgressError, TargetForbiddenError } from '../egress/fetch-errors.js';
import { defaultPort } from '../egress/host-port.js';
import type { CheckedAddress, TargetPolicy } from '../egress/target-policy/target-policy.js';
import { WebhookRefusedError } from './webhook-errors.js';

const MAX_URL_LENGTH = 2048;

/** Where one attempt may connect: the URL and the addresses the policy checked for it. */
export interface CheckedWebhook {
  url: URL;
  port: number;
  addresses: CheckedAddress[];
}

/**
 * Webhook URLs pass the scrapes' target policy (public unicast addresses only, never the
 * service's own ports), built over WEBHOOK_ALLOW_CIDRS in place of the scrapes' allowances
 * (server/webhook-parts.ts). Checked at submission, and again before every attempt, whose
 * connection goes to exactly the addresses checked then (a name that rebinds to a private address
 * between the two is refused the second time).
 */
export class WebhookTargets implements WebhookPolicy {
  constructor(private readonly policy: TargetPolicy) {}

  async check(url: string): Promise<void> {
    try {
      await this.resolve(url);
    } catch (err) {
      // A name that cannot be resolved right now (EAI_AGAIN) may resolve later: accepted, and
      // checked again at every attempt. One that does not exist is refused.
      if (err instanceof EgressError && !(err instanceof TargetForbiddenError) && err.kind !== 'dns') return;
      throw err;
    }
  }

  /** Throws WebhookRefusedError for a URL the policy refuses, EgressError when its name does not resolve (now). */
  async resolve(text: string): Promise<CheckedWebhook> {
    const url = parsed(text);
    try {
      const addresses = await this.policy.checkUrl(url);
      return { url, port: defaultPort(url), addresses };
    } catch (err) {
      if (err instanceof TargetForbiddenError) throw new WebhookRefusedError(`the webhook URL is not allowed: ${err.reason}`);
      if (err instanceof EgressError && err.kind === 'dns') throw new WebhookRefusedError(`the webhook URL's host does not resolve`);
      throw err;
    }
  }
}

function parsed(text: string): URL {
  if (typeof text !== 'string' || text.length > MAX_URL_LENGTH) throw new WebhookRefusedError(`the webhook URL must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookRefusedError('the webhook URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookRefusedError('the webhook URL must be http or https');
  if (url.username !== '' || url.password !== '') throw new WebhookRefusedError('the webhook URL may not carry credentials: send them as a header');
  return url;
}
