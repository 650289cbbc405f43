import type { Knex } from 'knex';

/**
 * Wrong admin tokens per client address (src/http/admin-token-throttle.ts): one row per address,
 * counting its failures in the window that began with its first failure, shared by every API
 * process. Rows whose window has passed are deleted through the index on the window's start.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('admin_token_failures', (t) => {
    t.text('client_address').primary();
    t.timestamp('window_started_at', { useTz: true }).notNullable().index('admin_token_failures_window_started_at_index');
    t.integer('failures').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('admin_token_failures');
}
