import { hashSecret, hashesEqual } from '../crypto';
import { credentialCacheFor } from '../http/credential-cache';
import { findCheckoutByIdUnscoped, findCheckoutWithMerchantVersionUnscoped, type CheckoutRow } from '../storage/checkouts';
import type { Db } from '../storage/db';
import { findMerchantWithVersion, type MerchantRow } from '../storage/merchants';

export type { CheckoutRow } from '../storage/checkouts';

/** A checkout whose client secret matched, and its merchant row's version as the same statement read it. */
export interface SecretCheckout {
  checkout: CheckoutRow;
  merchantVersion: string;
}

/**
 * The checkout whose own client_secret was presented; undefined for an unknown checkout and a
 * wrong secret alike. The checkout id is the secret's scope: the wallet has no merchant credential.
 */
export async function checkoutForSecret(db: Db, checkoutId: string, secret: string): Promise<SecretCheckout | undefined> {
  const found = await findCheckoutWithMerchantVersionUnscoped(db, checkoutId);
  return found && hashesEqual(Buffer.from(found.checkout.client_secret_hash), hashSecret(secret)) ? found : undefined;
}

/** How the checkout's page is shown (its framing), read without its secret; undefined for an unknown checkout. */
export async function checkoutExperience(db: Db, checkoutId: string): Promise<CheckoutRow['experience'] | undefined> {
  return (await findCheckoutByIdUnscoped(db, checkoutId))?.experience;
}

/**
 * The merchant a checkout belongs to, at the version its lookup read (checkoutForSecret): from the
 * credential cache when it holds that version, else read (a checkout without one is a broken row).
 */
export async function merchantOfCheckout(db: Db, { checkout, merchantVersion }: SecretCheckout): Promise<MerchantRow> {
  const merchant = await credentialCacheFor(db).merchantAt(checkout.merchant_id, merchantVersion, () => findMerchantWithVersion(db, checkout.merchant_id));
  if (!merchant) throw new Error(`checkout ${checkout.id} references a missing merchant`);
  return merchant;
}
