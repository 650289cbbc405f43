import type { Knex } from 'knex';

/**
 * Authenticator recovery and idle sessions. A person's one-time recovery codes are stored as
 * SHA-256 hashes (each is random, so a fast hash cannot be reversed), each spent once. A reset link
 * has a purpose: `password` (asked by the person: it may not replace an enrolled authenticator) or
 * `authenticator_recovery` (started by an owner or an operator_admin: it enrols a new one). A
 * session remembers when it was last used, so an idle one ends before its absolute expiry.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('recovery_codes', (t) => {
    t.text('user_id').notNullable().references('id').inTable('people').onDelete('CASCADE');
    t.binary('code_hash').notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['user_id', 'code_hash']);
  });
  await knex.schema.alterTable('password_resets', (t) => {
    t.text('purpose').notNullable().defaultTo('password');
    t.text('started_by');
  });
  await knex.raw("ALTER TABLE password_resets ADD CONSTRAINT password_resets_purpose_check CHECK (purpose IN ('password', 'authenticator_recovery'))");
  await knex.schema.alterTable('sessions', (t) => {
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => t.dropColumn('last_seen_at'));
  await knex.raw('ALTER TABLE password_resets DROP CONSTRAINT password_resets_purpose_check');
  await knex.schema.alterTable('password_resets', (t) => {
    t.dropColumn('started_by');
    t.dropColumn('purpose');
  });
  await knex.schema.dropTable('recovery_codes');
}
