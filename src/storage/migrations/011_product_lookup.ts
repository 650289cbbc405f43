import type { Knex } from 'knex';

/**
 * A dedup line reuses any of the merchant's products with its sku and price, not only those made
 * with dedup (src/storage/products.ts): an index over all products keeps that lookup an index
 * scan, as the partial unique index (dedup products only) did before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX products_merchant_sku_price_index ON products (merchant_id, sku, price_cents)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX products_merchant_sku_price_index');
}
