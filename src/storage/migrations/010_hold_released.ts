import type { Knex } from 'knex';

/**
 * `checkout.release_hold` is recorded at most once per charge: the release sets
 * `charges.hold_released_at` in its own transaction, and whoever would release again finds it set.
 * Two writers may release a hold (the failing move, and a merchant's acceptance learnt after the
 * charge failed); a merchant crediting the held amount back on each release would credit it twice.
 * Charges released before this migration get the time of their recorded release.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('charges', (t) => {
    t.timestamp('hold_released_at', { useTz: true });
  });
  await knex.raw(`
    UPDATE charges SET hold_released_at = released.at
    FROM (SELECT charge_id, min(created_at) AS at FROM events WHERE type = 'checkout.release_hold' AND charge_id IS NOT NULL GROUP BY charge_id) AS released
    WHERE charges.id = released.charge_id`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('charges', (t) => t.dropColumn('hold_released_at'));
}
