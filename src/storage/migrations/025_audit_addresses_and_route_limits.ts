import type { Knex } from 'knex';

/**
 * The audit log keeps the client address of each entry made by a request (null for the service's
 * own work and for entries written before it was kept), and the operator reads the whole log newest
 * first, across merchants. Unauthenticated account routes are limited per client address: one row
 * per address, counting its requests in the window that began with its first, shared by every API
 * process (as admin_token_failures and sign_in_failures are).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audit_log', (t) => {
    t.text('client_address');
    t.index(['created_at', 'id'], 'audit_log_created_index');
  });
  await knex.schema.createTable('account_route_requests', (t) => {
    t.text('throttle_key').primary();
    t.timestamp('window_started_at', { useTz: true }).notNullable().index('account_route_requests_window_started_at_index');
    t.integer('requests').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('account_route_requests');
  await knex.schema.alterTable('audit_log', (t) => {
    t.dropIndex(['created_at', 'id'], 'audit_log_created_index');
    t.dropColumn('client_address');
  });
}
