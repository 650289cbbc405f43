import { hashSecret, hashesEqual } from '../crypto';
import { findCheckoutByIdUnscoped, type CheckoutRow } from '../storage/checkouts';
import type { Db } from '../storage/db';
import { findMerchant, type MerchantRow } from '../storage/merchants';

export type { CheckoutRow } from '../storage/checkouts';

/**
 * The checkout whose own client_secret was presented; undefined for an unknown checkout and a
 * wrong secret alike. The checkout id is the secret's scope: the wallet has no merchant credential.
 */
export async function checkoutForSecret(db: Db, checkoutId: string, secret: string): Promise<CheckoutRow | undefined> {
  const checkout = await findCheckoutByIdUnscoped(db, checkoutId);
  return checkout && hashesEqual(Buffer.from(checkout.client_secret_hash), hashSecret(secret)) ? checkout : undefined;
}

/** How the checkout's page is shown (its framing), read without its secret; undefined for an unknown checkout. */
export async function checkoutExperience(db: Db, checkoutId: string): Promise<CheckoutRow['experience'] | undefined> {
  return (await findCheckoutByIdUnscoped(db, checkoutId))?.experience;
}

/** The merchant a checkout belongs to (a checkout without one is a broken row). */
export async function merchantOfCheckout(db: Db, checkout: Pick<CheckoutRow, 'id' | 'merchant_id'>): Promise<MerchantRow> {
  const merchant = await findMerchant(db, checkout.merchant_id);
  if (!merchant) throw new Error(`checkout ${checkout.id} references a missing merchant`);
  return merchant;
}
