import type { Knex } from 'knex';

/** Subscriptions that renew, their renewal charges and sandbox test clocks (the subscriptions issue). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('subscriptions', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('customer_id', 40).notNullable().references('customers.id');
    // One subscription per checkout: the first successful charge creates it, once.
    t.string('checkout_id', 40).notNullable().unique().references('checkouts.id');
    t.string('payment_method_id', 40).notNullable().references('payment_methods.id');
    t.string('first_charge_id', 40).notNullable().references('charges.id');
    t.string('status', 16).notNullable().checkIn(['active', 'past_due', 'cancelled']);
    t.string('interval', 8).notNullable().checkIn(['day', 'week', 'month', 'year']);
    t.integer('interval_count').notNullable();
    t.integer('amount_cents').notNullable();
    t.string('currency', 3).notNullable();
    // Every period boundary is computed from the anchor (never from the previous boundary), so
    // an anchor on the 31st comes back on the 31st after a short month.
    t.timestamp('anchor_at', { useTz: true }).notNullable();
    // The index of the last paid period: 0 is the one the checkout paid.
    t.integer('period').notNullable().defaultTo(0);
    t.timestamp('current_period_start', { useTz: true }).notNullable();
    t.timestamp('current_period_end', { useTz: true }).notNullable();
    t.timestamp('next_charge_at', { useTz: true });
    // Failed renewal charges of the period now due (dunning); 0 when paid up.
    t.integer('failed_attempts').notNullable().defaultTo(0);
    t.boolean('cancel_at_period_end').notNullable().defaultTo(false);
    t.timestamp('cancelled_at', { useTz: true });
    t.string('cancellation_reason', 24);
    // Sandbox test clock: how far the subscription's clock runs ahead of real time (0 in production).
    t.bigInteger('clock_offset_ms').notNullable().defaultTo(0);
    // Set once the renewal workflow is known to exist; the sweeper starts any a crash left unstarted.
    t.timestamp('workflow_started_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['merchant_id', 'created_at']);
    t.index(['customer_id']);
  });
  await knex.raw('CREATE INDEX subscriptions_unstarted_idx ON subscriptions (created_at) WHERE workflow_started_at IS NULL');

  await knex.schema.alterTable('charges', (t) => {
    // Renewal charges (and, once it exists, the checkout's first charge) name their subscription and period.
    t.string('subscription_id', 40).references('subscriptions.id');
    t.integer('subscription_period');
    t.index(['subscription_id']);
  });
  // The last line of defence: at most one successful charge per subscription period.
  await knex.raw(
    "CREATE UNIQUE INDEX charges_subscription_period_paid_uq ON charges (subscription_id, subscription_period) WHERE status = 'succeeded' AND subscription_id IS NOT NULL",
  );

  // A sandbox customer's test clock: where subscriptions created for the customer start their clock.
  await knex.schema.createTable('customer_test_clocks', (t) => {
    t.string('customer_id', 40).primary().references('customers.id');
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.bigInteger('offset_ms').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // Merchants onboarded before this migration get the default dunning schedule.
  await knex.raw(
    `UPDATE merchants SET settings = settings || '{"subscription_retry_days": [1, 3, 5]}'::jsonb WHERE NOT jsonb_exists(settings, 'subscription_retry_days')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE merchants SET settings = settings - 'subscription_retry_days'`);
  await knex.schema.dropTable('customer_test_clocks');
  await knex.raw('DROP INDEX IF EXISTS charges_subscription_period_paid_uq');
  await knex.schema.alterTable('charges', (t) => {
    t.dropColumn('subscription_period');
    t.dropColumn('subscription_id');
  });
  await knex.schema.dropTable('subscriptions');
}
