import type { Knex } from 'knex';

/**
 * Velocity limits count a card by its number alone and, when the merchant sets it, a customer's
 * attempts: the attempt log keeps each attempt's number key and customer, and a payment method
 * keeps its number key so an attempt with a saved method is counted with the same card typed in.
 * The log's last hour (the velocity window) is carried over with its fingerprint as the key,
 * the closest it has, so the window does not start empty.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payment_methods', (t) => {
    t.text('number_key');
  });
  await knex.schema.alterTable('attempt_log', (t) => {
    t.text('number_key');
    t.string('customer_id', 40);
    t.index(['merchant_id', 'number_key', 'created_at']);
    t.index(['merchant_id', 'customer_id', 'created_at']);
    t.dropIndex(['merchant_id', 'fingerprint', 'created_at']);
  });
  await knex.raw(
    `UPDATE attempt_log a SET number_key = a.fingerprint, customer_id = c.customer_id
       FROM checkouts c WHERE c.id = a.checkout_id AND a.created_at > now() - interval '1 hour'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('attempt_log', (t) => {
    t.index(['merchant_id', 'fingerprint', 'created_at']);
    t.dropIndex(['merchant_id', 'customer_id', 'created_at']);
    t.dropIndex(['merchant_id', 'number_key', 'created_at']);
    t.dropColumn('customer_id');
    t.dropColumn('number_key');
  });
  await knex.schema.alterTable('payment_methods', (t) => {
    t.dropColumn('number_key');
  });
}
