import type { Knex } from 'knex';

/**
 * One row per request that handed a review decision or a refund to Temporal and was either taken
 * on by the worker (`claimed`, written in the transaction that records the decision or claims the
 * refund) or answered without it (`answered`, written by the request as it gives up). Whichever
 * is written first stands: a decision or refund whose request was answered 503 is never applied
 * afterwards, and a request that finds its work claimed answers its outcome.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('request_fences', (t) => {
    t.text('id').primary();
    t.string('state', 16).notNullable().checkIn(['claimed', 'answered']);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('request_fences');
}
