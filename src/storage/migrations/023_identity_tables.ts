import type { Knex } from 'knex';

/**
 * People, their sessions, invitations, password resets, sign-in failures and the audit log are
 * one identity for every actor (a merchant's people and the operator's alike, told apart by
 * `merchant_id`), so their tables drop the `merchant_` prefix. A rename keeps every row, key and
 * foreign key; the indexes and constraints named after the old tables are renamed with them.
 */
const RENAMES: ReadonlyArray<readonly [from: string, to: string]> = [
  ['merchant_users', 'people'],
  ['merchant_sessions', 'sessions'],
  ['merchant_invitations', 'invitations'],
  ['merchant_password_resets', 'password_resets'],
  ['merchant_sign_in_failures', 'sign_in_failures'],
  ['merchant_audit_log', 'audit_log'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [from, to] of RENAMES) await renameTable(knex, from, to);
}

export async function down(knex: Knex): Promise<void> {
  for (const [from, to] of [...RENAMES].reverse()) await renameTable(knex, to, from);
}

async function renameTable(knex: Knex, from: string, to: string): Promise<void> {
  await knex.raw('ALTER TABLE ?? RENAME TO ??', [from, to]);
  // Constraints first: a primary key's or unique constraint's index is renamed with it.
  const constraints = await knex.raw<{ rows: Array<{ name: string }> }>(
    "SELECT conname AS name FROM pg_constraint WHERE conrelid = ?::regclass AND conname LIKE ? || '\\_%'",
    [to, from],
  );
  for (const { name } of constraints.rows) await knex.raw('ALTER TABLE ?? RENAME CONSTRAINT ?? TO ??', [to, name, to + name.slice(from.length)]);
  const indexes = await knex.raw<{ rows: Array<{ name: string }> }>(
    "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND indexname LIKE ? || '\\_%'",
    [to, from],
  );
  for (const { name } of indexes.rows) await knex.raw('ALTER INDEX ?? RENAME TO ??', [name, to + name.slice(from.length)]);
}
