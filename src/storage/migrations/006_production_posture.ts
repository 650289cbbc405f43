import type { Knex } from 'knex';

/**
 * Signing-secret rotation (the previous secret stays valid until the end of the overlap) and the
 * withdrawal-destination setting written into existing merchants' settings.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchants', (t) => {
    // Sealed like the current secret; deliveries sign with both until the time below.
    t.text('previous_webhook_signing_secret_sealed');
    t.timestamp('previous_webhook_signing_secret_expires_at', { useTz: true });
  });
  await knex.raw(`UPDATE merchants SET settings = settings || '{"withdrawal_destinations": "any"}'::jsonb WHERE settings->'withdrawal_destinations' IS NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE merchants SET settings = settings - 'withdrawal_destinations'`);
  await knex.schema.alterTable('merchants', (t) => {
    t.dropColumn('previous_webhook_signing_secret_sealed');
    t.dropColumn('previous_webhook_signing_secret_expires_at');
  });
}
