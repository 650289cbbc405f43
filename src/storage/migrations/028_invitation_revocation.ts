import type { Knex } from 'knex';

/**
 * An invitation can be revoked: by a person who may invite (listed and revoked by owners and
 * operator admins), by a newer invitation of the same email in the same scope, or when its
 * inviter may no longer invite (removed or given a role that may not). A revoked invitation is
 * kept, like an accepted one, so the audit log's targets still exist.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invitations', (t) => {
    t.timestamp('revoked_at', { useTz: true });
    t.index(['invited_by'], 'invitations_invited_by_index');
  });
  await knex.raw('CREATE INDEX invitations_open_email_index ON invitations (email) WHERE accepted_at IS NULL AND revoked_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX invitations_open_email_index');
  await knex.schema.alterTable('invitations', (t) => {
    t.dropIndex(['invited_by'], 'invitations_invited_by_index');
    t.dropColumn('revoked_at');
  });
}
