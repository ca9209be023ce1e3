import type { Knex } from 'knex';

/**
 * Rotation with a grace period, and the audit log. A rotated key keeps its row (balance, period,
 * history); its previous secret's hash stays beside the new one until `previous_key_expires_at`.
 * Only the slow path (findKey) reads it: the hot path's debit by hash matches the current secret
 * alone, so a previous secret costs its caller one more read, never anyone else anything.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.string('previous_key_hash', 64).nullable();
    t.bigInteger('previous_key_expires_at').nullable();
    t.index(['previous_key_hash'], 'api_keys_previous_key_hash');
    t.index(['created_at'], 'api_keys_created_at');
  });
  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('at').notNullable();
    /** 'admin', 'cli', or 'key:<display prefix>' (a user changing their own key). */
    t.string('actor', 40).notNullable();
    t.string('action', 20).notNullable();
    t.integer('api_key_id').unsigned().notNullable();
    t.string('key_prefix', 16).notNullable();
    /** JSON of what the change touched (never a secret); NULL for a creation's before. */
    t.text('before_state').nullable();
    t.text('after_state').nullable();
    t.index(['api_key_id', 'id'], 'audit_log_key');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_log');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['created_at'], 'api_keys_created_at');
    t.dropIndex(['previous_key_hash'], 'api_keys_previous_key_hash');
    t.dropColumn('previous_key_expires_at');
    t.dropColumn('previous_key_hash');
  });
}
