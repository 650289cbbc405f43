import type { Knex } from 'knex';

/** Idempotency keys, and the evidence each review, block and restriction was decided on. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    // `merchant:<id>` for the public API, `checkout:<id>` for the wallet: a key means nothing outside its scope.
    t.string('scope', 64).notNullable();
    t.string('key', 255).notNullable();
    // SHA-256 of method, path and body: the same key with another request is refused.
    t.string('request_hash', 64).notNullable();
    // Null while the first request is still running; waiters poll the row until it is set.
    t.integer('status');
    t.text('response_body');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.primary(['scope', 'key']);
    t.index(['created_at']);
  });
  await knex.schema.alterTable('event_delivery_attempts', (t) => {
    t.text('response_excerpt');
  });
  await knex.schema.alterTable('reviews', (t) => {
    t.jsonb('evidence');
    t.text('decided_by');
  });
  await knex.schema.alterTable('checkouts', (t) => {
    t.jsonb('blocked_evidence');
  });
  await knex.schema.alterTable('customers', (t) => {
    t.jsonb('restriction_evidence');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('customers', (t) => t.dropColumn('restriction_evidence'));
  await knex.schema.alterTable('checkouts', (t) => t.dropColumn('blocked_evidence'));
  await knex.schema.alterTable('reviews', (t) => {
    t.dropColumn('evidence');
    t.dropColumn('decided_by');
  });
  await knex.schema.alterTable('event_delivery_attempts', (t) => t.dropColumn('response_excerpt'));
  await knex.schema.dropTable('idempotency_keys');
}
