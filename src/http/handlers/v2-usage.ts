import { hashApiKey } from '../../billing/billing.js';
import type { OperationHandler } from '../routing/operations.js';
import type { components } from '../../generated/openapi-types.js';
import { clientAddressOf } from '../client-address.js';
import { apiKeyOf } from '../decode/api-key-of.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';

/** v2Usage: the key's current subscription period and credits. */
export function v2Usage(service: ScrapeService): OperationHandler<'v2Usage'> {
  return async (v, req, res) => {
    const key = await service.account({ keyHash: hashApiKey(apiKeyOf(req.get('x-api-key'), v.query['x-api-key'])), clientAddress: clientAddressOf(req) });
    const record: components['schemas']['UsageRecord'] = {
      plan_name: key.planName,
      start_date: new Date(key.periodStart).toISOString(),
      end_date: new Date(key.periodEnd).toISOString(),
      plan_total_credits: key.creditsTotal,
      remained_credits: key.creditsRemaining,
    };
    res.status(200).json(record);
  };
}
