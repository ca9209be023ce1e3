import type { Knex } from 'knex';
import type { SecretRotation, WebhookSecretsPort } from '../webhooks/webhook-ports.js';
import { recordAudit } from './audit-log.js';
import type { Database } from './database.js';

/** Each key's webhook signing secret (webhook_secrets, migration 011). */
export class WebhookSecretsSql implements WebhookSecretsPort {
  private readonly knex: Knex;

  constructor(
    db: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.knex = db.knex;
  }

  /** Two instances asking at once for a key's first secret: both insert, one wins, both read the winner's. */
  async secretOf(apiKeyId: number, make: () => string): Promise<string | undefined> {
    const found = await this.read(apiKeyId);
    if (found !== undefined) return found;
    const key = await this.knex('api_keys').select('id').where({ id: apiKeyId }).first();
    if (!key) return undefined;
    await this.knex('webhook_secrets').insert({ api_key_id: apiKeyId, secret: make(), created_at: this.now() }).onConflict('api_key_id').ignore();
    return this.read(apiKeyId);
  }

  async rotate(rotation: SecretRotation): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      const key = (await trx('api_keys').select('id', 'key_prefix').where({ id: rotation.apiKeyId }).first()) as { id: number; key_prefix: string } | undefined;
      if (!key) return false;
      const at = this.now();
      const changed = await trx('webhook_secrets').where({ api_key_id: rotation.apiKeyId }).update({ secret: rotation.secret, created_at: at });
      if (changed === 0) await trx('webhook_secrets').insert({ api_key_id: rotation.apiKeyId, secret: rotation.secret, created_at: at });
      await recordAudit(trx, { actor: rotation.actor, action: 'rotate_webhook', apiKeyId: rotation.apiKeyId, keyPrefix: key.key_prefix, before: null, after: null }, at);
      return true;
    });
  }

  private async read(apiKeyId: number): Promise<string | undefined> {
    const row = (await this.knex('webhook_secrets').select('secret').where({ api_key_id: apiKeyId }).first()) as { secret: string } | undefined;
    return row?.secret;
  }
}
