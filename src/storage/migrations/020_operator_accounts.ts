import type { Knex } from 'knex';

const MERCHANT_ROLES = "'owner', 'developer', 'reviewer', 'viewer'";
const OPERATOR_ROLES = "'operator_admin', 'operator_reviewer', 'operator_viewer'";
/** A merchant's person has a merchant and a merchant role; the operator's person has neither merchant nor merchant role. */
const SCOPE_CHECK = `(merchant_id IS NOT NULL AND role IN (${MERCHANT_ROLES})) OR (merchant_id IS NULL AND role IN (${OPERATOR_ROLES}))`;

/**
 * The operator's people sign in with the merchant accounts' machinery (src/operator-accounts/):
 * a row of merchant_users or merchant_invitations without a merchant is the operator's, with an
 * operator role, and an operator always has an authenticator (they act on every merchant). Their
 * sessions, resets and sign-in failures live in the same tables. `totp_last_step` is the last
 * accepted authenticator time step, so a code is used once. An audit entry names an operator's
 * email beside their id (operators are nobody's team, and may be removed later); operator-wide
 * entries (an operator invited or signed in) have no merchant. The dashboard's signed-cookie
 * revocations go: its sessions are server-side rows now.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE merchant_users ALTER COLUMN merchant_id DROP NOT NULL');
  await knex.raw('ALTER TABLE merchant_users DROP CONSTRAINT merchant_users_role_check');
  await knex.raw(`ALTER TABLE merchant_users ADD CONSTRAINT merchant_users_role_check CHECK (${SCOPE_CHECK})`);
  await knex.raw('ALTER TABLE merchant_users ADD CONSTRAINT merchant_users_operator_totp_check CHECK (merchant_id IS NOT NULL OR totp_secret_sealed IS NOT NULL)');
  await knex.schema.alterTable('merchant_users', (t) => {
    t.bigInteger('totp_last_step');
  });
  await knex.raw('ALTER TABLE merchant_invitations ALTER COLUMN merchant_id DROP NOT NULL');
  await knex.raw(`ALTER TABLE merchant_invitations ADD CONSTRAINT merchant_invitations_role_check CHECK (${SCOPE_CHECK})`);
  await knex.raw('ALTER TABLE merchant_audit_log ALTER COLUMN merchant_id DROP NOT NULL');
  await knex.schema.alterTable('merchant_audit_log', (t) => {
    t.string('actor_email', 254);
  });
  await knex.schema.dropTable('dashboard_session_revocations');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.createTable('dashboard_session_revocations', (t) => {
    t.text('session_id').primary();
    t.timestamp('expires_at', { useTz: true }).notNullable().index('dashboard_session_revocations_expires_at_index');
  });
  await knex('merchant_audit_log').whereNull('merchant_id').delete();
  await knex.schema.alterTable('merchant_audit_log', (t) => {
    t.dropColumn('actor_email');
  });
  await knex.raw('ALTER TABLE merchant_audit_log ALTER COLUMN merchant_id SET NOT NULL');
  await knex('merchant_invitations').whereNull('merchant_id').delete();
  await knex.raw('ALTER TABLE merchant_invitations DROP CONSTRAINT merchant_invitations_role_check');
  await knex.raw('ALTER TABLE merchant_invitations ALTER COLUMN merchant_id SET NOT NULL');
  await knex('merchant_users').whereNull('merchant_id').delete();
  await knex.schema.alterTable('merchant_users', (t) => {
    t.dropColumn('totp_last_step');
  });
  await knex.raw('ALTER TABLE merchant_users DROP CONSTRAINT merchant_users_operator_totp_check');
  await knex.raw('ALTER TABLE merchant_users DROP CONSTRAINT merchant_users_role_check');
  await knex.raw(`ALTER TABLE merchant_users ADD CONSTRAINT merchant_users_role_check CHECK (role IN (${MERCHANT_ROLES}))`);
  await knex.raw('ALTER TABLE merchant_users ALTER COLUMN merchant_id SET NOT NULL');
}
