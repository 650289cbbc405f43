import type { Knex } from 'knex';

/**
 * The Stripe connector.
 * - `merchants.stripe_*`: the merchant's Stripe secret key and webhook endpoint secret, sealed with
 *   DATA_ENCRYPTION_KEY, and the key's last four, the only part of it ever shown again.
 * - `stripe_events`: the Stripe events received, by Stripe's event id, so a redelivered event moves
 *   nothing twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchants', (t) => {
    t.text('stripe_secret_key_sealed');
    t.text('stripe_secret_key_last4');
    t.text('stripe_webhook_secret_sealed');
  });
  await knex.schema.createTable('stripe_events', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('id').inTable('merchants');
    t.text('type').notNullable();
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('stripe_events');
  await knex.schema.alterTable('merchants', (t) => {
    t.dropColumn('stripe_secret_key_sealed');
    t.dropColumn('stripe_secret_key_last4');
    t.dropColumn('stripe_webhook_secret_sealed');
  });
}
