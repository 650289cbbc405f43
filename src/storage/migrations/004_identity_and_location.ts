import type { Knex } from 'knex';

/** KYC records, device pings and geo checks (the identity and location issue). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('kyc_records', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('customer_id', 40).notNullable().references('customers.id');
    t.text('first_name').notNullable();
    t.text('last_name').notNullable();
    t.text('email');
    t.text('phone_number');
    t.date('date_of_birth').notNullable();
    t.text('address_line_1').notNullable();
    t.text('address_line_2');
    t.text('city').notNullable();
    t.string('state', 2).notNullable();
    t.text('postal_code').notNullable();
    t.string('country', 3).notNullable();
    t.string('provider', 32).notNullable();
    t.boolean('verified').notNullable();
    // Sealed with the data encryption key; never echoed and never logged.
    t.text('last_four_ssn_sealed');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['customer_id', 'updated_at']);
    // One record per customer per provider (the upsert rule); the lock in the service serialises, this guarantees.
    t.unique(['merchant_id', 'customer_id', 'provider']);
  });

  await knex.schema.createTable('geo_checks', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('customer_id', 40).notNullable().references('customers.id');
    t.boolean('passed').notNullable();
    t.text('municipality');
    t.text('region').notNullable();
    t.text('country').notNullable();
    t.double('latitude').notNullable();
    t.double('longitude').notNullable();
    t.timestamp('checked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['customer_id', 'checked_at']);
  });

  await knex.schema.createTable('device_pings', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('customer_id', 40).notNullable().references('customers.id');
    t.double('latitude').notNullable();
    t.double('longitude').notNullable();
    t.text('ip_address');
    t.string('geo_check_id', 40).references('geo_checks.id');
    t.boolean('geo_check_cached').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['device_pings', 'geo_checks', 'kyc_records']) await knex.schema.dropTable(table);
}
