// Stored checkouts converted to their API shapes. Fields are picked one by one, so a column
// added to the table never leaks into a response.
import type { WebhookLineItem } from '../domain/event-catalog';
import { incompleteSubscription } from '../domain/subscriptions';
import type { CheckoutRow, StoredLineItem } from '../storage/checkouts';
import type { CheckoutLineItem, CheckoutResponse } from './schemas';

/** The wallet page of the checkout; the client secret travels as a query parameter. */
export function checkoutUrl(walletBaseUrl: string, checkoutId: string, clientSecret: string): string {
  return `${checkoutPageUrl(walletBaseUrl, checkoutId)}?client_secret=${encodeURIComponent(clientSecret)}`;
}

/** The hosted page without its secret: where a processor's challenge (3D Secure) sends the customer back to. */
export function checkoutPageUrl(walletBaseUrl: string, checkoutId: string): string {
  return `${walletBaseUrl}/checkout/${checkoutId}`;
}

/** A response line: the product's own names (name, price_cents, url), unlike the webhook shape. */
export function presentLineItem(item: StoredLineItem): CheckoutLineItem {
  return {
    product_id: item.product_id,
    name: item.product_name,
    price_cents: item.product_price_cents,
    quantity: item.quantity,
    total_amount_cents: item.total_amount_cents,
    sku: item.sku,
    url: item.product_url,
  };
}

/** The webhook shape of a stored line (drops `kind`, which is ours, not the contract's). */
export function webhookLineItem(item: StoredLineItem): WebhookLineItem {
  const { kind: _kind, ...webhook } = item;
  return webhook;
}

/**
 * The contract's Checkout resource. The client secret is only known at creation (the row keeps
 * its hash), hence a parameter. `subscription` is omitted entirely, not null, when there is none.
 */
export function presentCheckout(row: CheckoutRow, clientSecret: string, walletBaseUrl: string): CheckoutResponse {
  return {
    url: checkoutUrl(walletBaseUrl, row.id, clientSecret),
    id: row.id,
    client_secret: clientSecret,
    line_items: row.line_items.map(presentLineItem),
    line_items_total_amount_cents: row.line_items_total_amount_cents,
    balance_amount_cents: row.balance_amount_cents,
    type: row.type,
    fixed_amount_cents: row.fixed_amount_cents,
    experience: row.experience,
    payment_options: row.payment_options,
    // Not paid yet at creation: the subscription the first successful charge will create (id null).
    ...(row.subscription ? { subscription: incompleteSubscription(row.subscription, row.line_items_total_amount_cents ?? 0) } : {}),
  };
}
