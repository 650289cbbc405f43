import type { Knex } from 'knex';

/**
 * Merchant accounts (src/merchant-accounts/): the merchant's people, their invitations, their
 * server-side sessions, password resets, sign-in failures for the throttle and the audit log.
 * Tokens (invitation, session, reset) are stored as SHA-256 hashes only; passwords as argon2id.
 * Removing a person deletes their row, and with it their sessions and resets.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('merchant_users', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('id').inTable('merchants').index('merchant_users_merchant_id_index');
    // Stored lower-cased: one person, one account, whatever the merchant (sign-in names no merchant).
    t.text('email').notNullable().unique('merchant_users_email_unique');
    t.text('role').notNullable();
    t.text('password_hash').notNullable();
    t.text('totp_secret_sealed');
    t.timestamp('totp_enabled_at', { useTz: true });
    t.text('pending_totp_secret_sealed');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw("ALTER TABLE merchant_users ADD CONSTRAINT merchant_users_role_check CHECK (role IN ('owner', 'developer', 'reviewer', 'viewer'))");

  await knex.schema.createTable('merchant_invitations', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('id').inTable('merchants').index('merchant_invitations_merchant_id_index');
    t.text('email').notNullable();
    t.text('role').notNullable();
    t.binary('token_hash').notNullable().unique('merchant_invitations_token_hash_unique');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('accepted_at', { useTz: true });
    t.text('invited_by').notNullable();
    t.text('pending_totp_secret_sealed');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('merchant_sessions', (t) => {
    t.binary('token_hash').primary();
    t.text('user_id').notNullable().references('id').inTable('merchant_users').onDelete('CASCADE').index('merchant_sessions_user_id_index');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('merchant_password_resets', (t) => {
    t.binary('token_hash').primary();
    t.text('user_id').notNullable().references('id').inTable('merchant_users').onDelete('CASCADE').index('merchant_password_resets_user_id_index');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // One row per throttled key (`account:<email>` or `address:<client address>`), as admin_token_failures.
  await knex.schema.createTable('merchant_sign_in_failures', (t) => {
    t.text('throttle_key').primary();
    t.timestamp('window_started_at', { useTz: true }).notNullable().index('merchant_sign_in_failures_window_started_at_index');
    t.integer('failures').notNullable();
  });

  await knex.schema.createTable('merchant_audit_log', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('id').inTable('merchants');
    // usr_... for a person, `admin` for the operator's admin API.
    t.text('actor').notNullable();
    t.text('action').notNullable();
    t.text('target');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['merchant_id', 'created_at', 'id'], 'merchant_audit_log_merchant_created_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['merchant_audit_log', 'merchant_sign_in_failures', 'merchant_password_resets', 'merchant_sessions', 'merchant_invitations', 'merchant_users']) {
    await knex.schema.dropTable(table);
  }
}
