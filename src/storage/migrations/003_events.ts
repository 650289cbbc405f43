import type { Knex } from 'knex';

/** The event outbox and its delivery attempts (the events issue). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    t.string('id', 40).primary();
    // Commit order: events recorded in one transaction share created_at, so order by this.
    t.bigIncrements('seq', { primaryKey: false });
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('type', 48).notNullable();
    t.string('checkout_id', 40);
    t.string('charge_id', 40);
    t.string('customer_id', 40);
    // The envelope serialised once, kept as text: jsonb would reorder keys, and the merchant
    // verifies the signature over these exact bytes.
    t.text('body').notNullable();
    // Whether the merchant had the event enabled when it happened (always-on events: true).
    t.boolean('enabled').notNullable();
    // hold events are delivered synchronously by the hold activity, never by the outbox.
    t.string('channel', 8).notNullable().defaultTo('outbox').checkIn(['outbox', 'hold']);
    t.string('delivery_status', 16).notNullable().defaultTo('pending');
    t.timestamp('dispatched_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['merchant_id', 'created_at']);
  });
  // The outbox sweeper reads only events that still need a delivery workflow.
  await knex.raw(
    "CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL AND enabled AND channel = 'outbox'",
  );

  await knex.schema.createTable('event_delivery_attempts', (t) => {
    t.bigIncrements('id');
    t.string('event_id', 40).notNullable().references('events.id');
    t.integer('attempt').notNullable();
    t.text('url');
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('http_status');
    t.text('error');
    t.index(['event_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('event_delivery_attempts');
  await knex.schema.dropTable('events');
}
