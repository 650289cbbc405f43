import type { Knex } from 'knex';

/** Merchants, their credentials and their customers (the foundation issue). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('merchants', (t) => {
    t.string('id', 40).primary();
    t.text('name').notNullable();
    t.string('environment', 16).notNullable().checkIn(['sandbox', 'production']);
    t.jsonb('settings').notNullable();
    // The signing secret is needed in plain to sign, so it is stored sealed (AES-256-GCM), not hashed.
    t.text('webhook_signing_secret_sealed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.bigIncrements('id');
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    // Shown to the operator to name a key for revocation; too short to authenticate with.
    t.string('key_prefix', 16).notNullable().unique();
    t.specificType('api_key_hash', 'bytea').notNullable().unique();
    t.specificType('client_secret_hash', 'bytea').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.index(['merchant_id']);
  });

  await knex.schema.createTable('customers', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.text('internal_id');
    t.text('email');
    t.text('first_name');
    t.text('last_name');
    t.string('phone_number', 10);
    t.date('date_of_birth');
    t.text('restriction_reason');
    t.timestamp('restricted_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // Uniqueness within a business is enforced by the database, so concurrent creates cannot both win.
  await knex.raw('CREATE UNIQUE INDEX customers_merchant_email_uq ON customers (merchant_id, lower(email)) WHERE email IS NOT NULL');
  await knex.raw('CREATE UNIQUE INDEX customers_merchant_phone_uq ON customers (merchant_id, phone_number) WHERE phone_number IS NOT NULL');
  await knex.raw('CREATE UNIQUE INDEX customers_merchant_internal_id_uq ON customers (merchant_id, internal_id) WHERE internal_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('customers');
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('merchants');
}
