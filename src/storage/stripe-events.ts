import type { Db } from './db';

export interface StripeEventRow {
  id: string;
  merchant_id: string;
  type: string;
  received_at: Date;
}

/** Whether the merchant's Stripe event was handled already (Stripe delivers an event at least once). */
export async function stripeEventSeen(db: Db, merchantId: string, id: string): Promise<boolean> {
  return Boolean(await db<StripeEventRow>('stripe_events').where({ id, merchant_id: merchantId }).first('id'));
}

/** Records a handled event; a second delivery handled at the same time records nothing more. */
export async function recordStripeEvent(db: Db, row: Pick<StripeEventRow, 'id' | 'merchant_id' | 'type'>): Promise<void> {
  await db<StripeEventRow>('stripe_events').insert(row).onConflict('id').ignore();
}
