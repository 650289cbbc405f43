import type { Knex } from 'knex';

/** `refunds.requested_by`: the merchant's person who asked for a dashboard refund (their email); null for the API, the operator and the processor. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refunds', (t) => {
    t.string('requested_by', 254);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refunds', (t) => {
    t.dropColumn('requested_by');
  });
}
