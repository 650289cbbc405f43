import type { Knex } from 'knex';

/**
 * The attempt that holds a checkout's attempt slot: its attempt key, set by the admission. A
 * wallet attempt's charge is written only while its own attempt holds the slot, so an attempt
 * whose request gave up (and freed the slot) makes no charge later, even when the customer's next
 * attempt holds the slot by then.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkouts', (t) => {
    t.text('attempt_slot_key');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkouts', (t) => {
    t.dropColumn('attempt_slot_key');
  });
}
