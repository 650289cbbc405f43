import type { Knex } from 'knex';

/** Products, checkouts, payment methods, charges, refunds and reviews (the checkout issue). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('products', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.text('name').notNullable();
    t.integer('price_cents').notNullable();
    t.text('sku');
    t.text('url');
    t.boolean('active').notNullable().defaultTo(true);
    t.boolean('dedup').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // dedup: true reuses one product per (sku, price); the partial unique index makes that race-free.
  await knex.raw('CREATE UNIQUE INDEX products_dedup_uq ON products (merchant_id, sku, price_cents) WHERE dedup');
  await knex.raw('ALTER TABLE products ADD CONSTRAINT products_price_positive CHECK (price_cents >= 1)');

  await knex.schema.createTable('checkouts', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('customer_id', 40).notNullable().references('customers.id');
    t.string('type', 16).notNullable().checkIn(['deposit', 'withdrawal']);
    t.string('flow', 32).notNullable();
    t.specificType('client_secret_hash', 'bytea').notNullable();
    t.integer('fixed_amount_cents');
    t.integer('balance_amount_cents');
    t.jsonb('line_items').notNullable().defaultTo('[]');
    t.integer('line_items_total_amount_cents');
    t.jsonb('subscription');
    t.string('experience', 16);
    t.jsonb('payment_options');
    t.text('return_url');
    t.string('currency', 3).notNullable().defaultTo('USD');
    t.string('state', 16).notNullable().defaultTo('open').checkIn(['open', 'in_review', 'completed', 'expired', 'blocked']);
    t.text('blocked_reason');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['merchant_id', 'created_at']);
    t.index(['customer_id']);
  });

  await knex.schema.createTable('payment_methods', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('customer_id', 40).notNullable().references('customers.id');
    t.string('payment_type', 16).notNullable();
    // Only what may be shown or used again: brand, last four, expiry; never a full number.
    t.jsonb('details').notNullable();
    t.text('fingerprint').notNullable();
    t.text('processor_token').notNullable();
    t.boolean('saved').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['customer_id']);
  });
  // Saving the same instrument twice keeps one saved method per customer.
  await knex.raw('CREATE UNIQUE INDEX payment_methods_saved_uq ON payment_methods (customer_id, fingerprint) WHERE saved');

  await knex.schema.createTable('charges', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('checkout_id', 40).notNullable().references('checkouts.id');
    t.string('customer_id', 40).notNullable().references('customers.id');
    t.string('payment_method_id', 40).notNullable().references('payment_methods.id');
    // The workflow's idempotency reference for the attempt: a retried activity finds its charge.
    t.text('attempt_key').notNullable().unique();
    t.integer('amount_cents').notNullable();
    t.string('currency', 3).notNullable();
    t.string('transaction_type', 8).notNullable().checkIn(['credit', 'debit']);
    t.string('status', 16).notNullable();
    t.text('failure_code');
    t.text('failure_message');
    t.string('processor', 32).notNullable();
    t.text('processor_charge_id');
    t.text('avs_result');
    t.text('cvv_result');
    t.text('network_authorization_code');
    t.jsonb('threeds');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['checkout_id']);
    t.index(['merchant_id', 'created_at']);
  });
  await knex.raw('ALTER TABLE charges ADD CONSTRAINT charges_amount_positive CHECK (amount_cents >= 1)');

  await knex.schema.createTable('refunds', (t) => {
    t.string('id', 40).primary();
    // A charge is refunded at most once: the unique key is the last line of defence.
    t.string('charge_id', 40).notNullable().unique().references('charges.id');
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.integer('amount_cents').notNullable();
    t.text('processor_refund_id');
    t.string('source', 16).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('reviews', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('checkout_id', 40).notNullable().unique().references('checkouts.id');
    t.string('customer_id', 40).notNullable().references('customers.id');
    t.string('payment_method_id', 40).notNullable().references('payment_methods.id');
    t.integer('amount_cents').notNullable();
    t.string('status', 16).notNullable().defaultTo('pending').checkIn(['pending', 'approved', 'declined']);
    t.timestamp('decided_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['status', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['reviews', 'refunds', 'charges', 'payment_methods', 'checkouts', 'products']) {
    await knex.schema.dropTable(table);
  }
}
