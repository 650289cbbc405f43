import type { Db } from './db';

export interface ProductRow {
  id: string;
  merchant_id: string;
  name: string;
  price_cents: number;
  sku: string | null;
  url: string | null;
  active: boolean;
  dedup: boolean;
  created_at: Date;
}

export type NewProduct = Omit<ProductRow, 'active' | 'created_at'>;

/** The products among `ids` that belong to the merchant (active or not); others are simply absent. */
export async function findProducts(db: Db, merchantId: string, ids: readonly string[]): Promise<ProductRow[]> {
  if (!ids.length) return [];
  return db<ProductRow>('products').where({ merchant_id: merchantId }).whereIn('id', [...ids]);
}

export async function insertProduct(db: Db, row: NewProduct): Promise<ProductRow> {
  const [inserted] = await db<ProductRow>('products').insert(row).returning('*');
  return inserted as ProductRow;
}

/**
 * dedup: true. Reuses the merchant's existing product with this sku and price (the contract: "an
 * existing product of the same business with the same sku and price_cents is reused"), whether or
 * not it was itself created with dedup; the dedup one first, else the oldest. Otherwise inserts
 * it, and answers whichever row stands: ON CONFLICT on the partial unique index (not
 * read-then-insert) keeps two concurrent checkouts from creating two dedup products: the loser
 * waits for the winner's commit, does nothing, and its next statement sees the winner's row.
 */
export async function findOrInsertDedupProduct(db: Db, row: NewProduct & { sku: string }): Promise<ProductRow> {
  const found = await db<ProductRow>('products')
    .where({ merchant_id: row.merchant_id, sku: row.sku, price_cents: row.price_cents })
    .orderBy([{ column: 'dedup', order: 'desc' }, { column: 'created_at' }, { column: 'id' }])
    .first();
  if (found) return found;
  const [inserted] = await db<ProductRow>('products')
    .insert({ ...row, dedup: true })
    .onConflict(db.raw('(merchant_id, sku, price_cents) WHERE dedup'))
    .ignore()
    .returning('*');
  if (inserted) return inserted as ProductRow;
  const existing = await db<ProductRow>('products')
    .where({ merchant_id: row.merchant_id, sku: row.sku, price_cents: row.price_cents, dedup: true })
    .first();
  if (!existing) throw new Error(`dedup product vanished after a conflict: ${row.merchant_id}/${row.sku}/${row.price_cents}`);
  return existing;
}

