import type { Db } from './db';
import type { WebhookLineItem } from '../domain/event-catalog';
import type { CheckoutFlow, CheckoutType, PaymentMethodId } from '../domain/settings';

export const CHECKOUT_STATES = ['open', 'in_review', 'completed', 'expired', 'blocked'] as const;
export type CheckoutState = (typeof CHECKOUT_STATES)[number];

export type LineItemKind = 'product' | 'shipping' | 'tax';

/**
 * One element of checkouts.line_items: the webhook shape (a snapshot of the product at
 * creation, so later product changes never rewrite a checkout) plus `kind`, which the wallet
 * uses to render shipping and tax lines and the event payload builder drops.
 */
export interface StoredLineItem extends WebhookLineItem {
  kind: LineItemKind;
}

// A type alias, not an interface, so it stays assignable to the event builders' plain records.
export type StoredSubscription = {
  interval: 'day' | 'week' | 'month' | 'year';
  interval_count: number;
};

export interface CheckoutRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  type: CheckoutType;
  flow: CheckoutFlow;
  client_secret_hash: Buffer;
  fixed_amount_cents: number | null;
  balance_amount_cents: number | null;
  line_items: StoredLineItem[];
  line_items_total_amount_cents: number | null;
  subscription: StoredSubscription | null;
  experience: 'web' | 'webview' | 'iframe' | null;
  /** The request's payment_options, null when omitted (the default: every enabled method). */
  payment_options: PaymentMethodId[] | null;
  return_url: string | null;
  currency: string;
  state: CheckoutState;
  blocked_reason: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

export type NewCheckout = Omit<CheckoutRow, 'state' | 'blocked_reason' | 'created_at' | 'updated_at'>;

// pg sends a JS array as a Postgres array literal, not JSON, so jsonb values are serialised here.
const asJson = <T>(value: T): T => (value === null ? value : (JSON.stringify(value) as unknown as T));

/** Inserts the checkout in state `open`. */
export async function insertCheckout(db: Db, row: NewCheckout): Promise<CheckoutRow> {
  const [inserted] = await db<CheckoutRow>('checkouts')
    .insert({
      ...row,
      line_items: asJson(row.line_items),
      subscription: asJson(row.subscription),
      payment_options: asJson(row.payment_options),
    })
    .returning('*');
  return inserted as CheckoutRow;
}

/** The merchant's checkout; another merchant's is absent, exactly like a missing one. */
export async function findCheckout(db: Db, merchantId: string, id: string): Promise<CheckoutRow | undefined> {
  return db<CheckoutRow>('checkouts').where({ merchant_id: merchantId, id }).first();
}

/**
 * Unscoped: for the wallet, which has no merchant credential and proves access with the
 * checkout's client secret (the caller compares client_secret_hash before using the row).
 */
export async function findCheckoutById(db: Db, id: string): Promise<CheckoutRow | undefined> {
  return db<CheckoutRow>('checkouts').where({ id }).first();
}

/**
 * Compare-and-set of the checkout state: moves to `to` only from one of `from`, in one
 * statement, so two racing writers (expiry timer and a succeeding charge) cannot both win.
 * Answers the updated row, or undefined when the checkout is missing or in another state.
 */
export async function updateCheckoutState(
  db: Db,
  id: string,
  from: readonly CheckoutState[],
  to: CheckoutState,
  changes: { blocked_reason?: string | null } = {},
): Promise<CheckoutRow | undefined> {
  const [row] = await db<CheckoutRow>('checkouts')
    .where({ id })
    .whereIn('state', [...from])
    .update({ ...changes, state: to, updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row as CheckoutRow | undefined;
}
