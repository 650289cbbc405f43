import type { Knex } from 'knex';

/**
 * Money safety: attempt admission and limits, the hold's recorded answer, reviews
 * spent by one charge, refunds that claim their charge, and the attempt log velocity reads.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkouts', (t) => {
    // The merchant's attempt limit when the checkout was created (null: created before the limit).
    t.integer('max_attempts');
    t.integer('attempts_count').notNullable().defaultTo(0);
    // An admitted attempt holds the checkout until its charge exists (or this passes, after a crash).
    t.timestamp('attempt_slot_until', { useTz: true });
    // Expiry pauses while a review is pending: the time that was left when the review started.
    t.integer('expiry_remaining_ms');
  });
  await knex.schema.alterTable('charges', (t) => {
    // The hold handshake is sent at most once per charge; its 2xx answer is recorded before anything else.
    t.timestamp('hold_sent_at', { useTz: true });
    t.timestamp('hold_accepted_at', { useTz: true });
  });
  await knex.schema.alterTable('reviews', (t) => {
    // The one charge the approval authorized: an approval is spent by exactly one charge.
    t.string('charge_id', 40).unique().references('charges.id');
    t.text('attempt_key');
  });
  await knex.schema.alterTable('refunds', (t) => {
    // pending: the refund has claimed its charge and is at the processor; no other move may take the charge.
    t.string('status', 16).notNullable().defaultTo('succeeded').checkIn(['pending', 'succeeded']);
  });
  await knex.schema.createTable('attempt_log', (t) => {
    t.bigIncrements('id');
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('checkout_id', 40).notNullable().references('checkouts.id');
    t.text('fingerprint');
    t.text('client_ip');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['merchant_id', 'fingerprint', 'created_at']);
    t.index(['merchant_id', 'client_ip', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('attempt_log');
  await knex.schema.alterTable('refunds', (t) => t.dropColumn('status'));
  await knex.schema.alterTable('reviews', (t) => {
    t.dropColumn('charge_id');
    t.dropColumn('attempt_key');
  });
  await knex.schema.alterTable('charges', (t) => {
    t.dropColumn('hold_sent_at');
    t.dropColumn('hold_accepted_at');
  });
  await knex.schema.alterTable('checkouts', (t) => {
    for (const column of ['max_attempts', 'attempts_count', 'attempt_slot_until', 'expiry_remaining_ms']) t.dropColumn(column);
  });
}
