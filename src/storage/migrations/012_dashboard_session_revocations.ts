import type { Knex } from 'knex';

/**
 * Signing out revokes the session for every API process (src/dashboard/session.ts): the session's
 * random id is kept here until the cookie would have expired. Every call made with a session
 * cookie looks its id up by primary key; expired rows are deleted at sign-out, through the index
 * on their expiry.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dashboard_session_revocations', (t) => {
    t.text('session_id').primary();
    t.timestamp('expires_at', { useTz: true }).notNullable().index('dashboard_session_revocations_expires_at_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('dashboard_session_revocations');
}
