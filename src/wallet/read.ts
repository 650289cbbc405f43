import { presentLoaded } from '../charges/load';
import { presentPaymentMethod, type PresentedCharge } from '../charges/present';
import { presentLineItem } from '../checkouts/present';
import { offeredPaymentMethods, visibleSavedMethods } from '../checkouts/flows';
import { WALLET_METHODS, type PaymentMethodId } from '../domain/settings';
import { savedCardExpired } from '../processors';
import { listCheckoutCharges, type ChargeRow } from '../storage/charges';
import type { CheckoutRow, StoredLineItem } from '../storage/checkouts';
import type { Db } from '../storage/db';
import type { MerchantRow } from '../storage/merchants';
import { listSavedPaymentMethodsOfCheckoutUnscoped, type PaymentMethodRow } from '../storage/payment-methods';
import { findCheckoutReview } from '../storage/reviews';
import { merchantOfCheckout, type SecretCheckout } from './service';

interface ReviewSummary {
  id: string;
  status: 'pending' | 'approved' | 'declined';
  amount_cents: number;
  /** The one charge the approval authorized; a checkout has no second review. */
  charge_id: string | null;
}

/** Everything the page needs besides the checkout row itself, loaded in one go. */
interface WalletView {
  checkout: CheckoutRow;
  merchant: MerchantRow;
  savedMethods: PaymentMethodRow[];
  review: ReviewSummary | null;
  charges: PresentedCharge[];
}

/** What the view reads by the checkout's id alone (readWalletView). */
export interface ViewReads {
  savedMethods: PaymentMethodRow[];
  review: ReviewSummary | null;
  chargeRows: ChargeRow[];
}

/**
 * The view's reads by the checkout's id alone, which need nothing the checkout's lookup answers:
 * sent beside it (readViewOnArrival), and used only once the client secret matched.
 */
export async function readWalletView(db: Db, checkoutId: string): Promise<ViewReads> {
  const [savedMethods, review, chargeRows] = await Promise.all([
    listSavedPaymentMethodsOfCheckoutUnscoped(db, checkoutId),
    checkoutReviewSummary(db, checkoutId),
    listCheckoutCharges(db, checkoutId),
  ]);
  return { savedMethods, review, chargeRows };
}

/** The view of the checkout that authenticated the call, with the reads readViewOnArrival sent. */
export async function loadWalletView(db: Db, found: SecretCheckout, reads: Promise<ViewReads> | undefined): Promise<WalletView> {
  if (!reads) throw new Error('readViewOnArrival did not run for this route');
  const { checkout } = found;
  const [merchant, { savedMethods, review, chargeRows }] = await Promise.all([merchantOfCheckout(db, found), reads]);
  // A checkout has a handful of attempts at most, so one small lookup per charge is fine.
  const charges = await Promise.all(chargeRows.map((charge) => presentLoaded(db, charge)));
  return { checkout, merchant, savedMethods, review, charges };
}

async function checkoutReviewSummary(db: Db, checkoutId: string): Promise<ReviewSummary | null> {
  const row = await findCheckoutReview(db, checkoutId);
  return row ? { id: row.id, status: row.status, amount_cents: row.amount_cents, charge_id: row.charge_id } : null;
}

/**
 * A completed, expired or blocked checkout takes no attempt, but its link lives on in browser
 * history and in shared links: its read shows only what the page needs to say how it ended, so no
 * customer email, phone or name, and no saved payment methods. A pending review pauses the deadline
 * (expires_at keeps the old one until the approval sets a new one): in review, never past it.
 */
function isFinished(checkout: CheckoutRow): boolean {
  if (checkout.state === 'completed' || checkout.state === 'expired' || checkout.state === 'blocked') return true;
  return checkout.state !== 'in_review' && checkout.expires_at.getTime() <= Date.now();
}

function withoutCustomerDetails(charge: PresentedCharge) {
  return { ...charge, customer: { id: charge.customer.id } };
}

export function presentWalletCheckout({ checkout, merchant, savedMethods, review, charges }: WalletView) {
  const settings = merchant.settings;
  const offered = offeredPaymentMethods(checkout.payment_options, settings.payment_methods[checkout.type]);
  const finished = isFinished(checkout);
  return {
    id: checkout.id,
    type: checkout.type,
    flow: checkout.flow,
    state: checkout.state,
    currency: checkout.currency,
    merchant: { name: merchant.name },
    fixed_amount_cents: checkout.fixed_amount_cents,
    balance_amount_cents: checkout.balance_amount_cents,
    line_items: checkout.line_items.map(presentWalletLineItem),
    line_items_total_amount_cents: checkout.line_items_total_amount_cents,
    // What the customer agrees to before paying: the amount and interval, and that the method is kept for renewals.
    subscription: checkout.subscription
      ? { interval: checkout.subscription.interval, interval_count: checkout.subscription.interval_count, amount_cents: amountDue(checkout), saved_for_renewals: true }
      : null,
    amount_due_cents: amountDue(checkout),
    payment_options: offered,
    // An expired card is left out: an attempt with it would be refused ("The card has expired.").
    saved_payment_methods: finished ? [] : visibleSavedMethods(savedMethods, offered).filter((pm) => !savedCardExpired(pm, new Date())).map(presentPaymentMethod),
    preselected_method: preselectedMethod(offered),
    experience: checkout.experience,
    return_url: checkout.return_url,
    // Null while a review is pending: expiry is paused until the reviewer decides.
    expires_at: checkout.state === 'in_review' ? null : checkout.expires_at.toISOString(),
    // Withdrawals of at least this amount need a review; a checkout has at most one, so once
    // `review` exists such an amount needs a new checkout (the page says so).
    review_threshold_cents: checkout.type === 'withdrawal' && settings.review.enabled ? settings.review.min_amount_cents : null,
    geo_required: settings.geo_required_for.includes(checkout.type),
    review,
    charges: finished ? charges.map(withoutCustomerDetails) : charges,
    // The hosted page shows a sandbox badge and the test-card hint for sandbox accounts.
    sandbox: merchant.environment === 'sandbox',
  };
}

export type WalletCheckout = ReturnType<typeof presentWalletCheckout>;

const TOKEN_WALLETS: ReadonlySet<string> = new Set(WALLET_METHODS);

/**
 * "When a wallet method is the only option, checkout opens with it selected": any lone
 * token-paid method (Apple Pay, Google Pay, PayPal, Venmo) is preselected; the page still
 * decides whether the device supports it.
 */
export function preselectedMethod(offered: PaymentMethodId[]): PaymentMethodId | null {
  return offered.length === 1 && TOKEN_WALLETS.has(offered[0]!) ? offered[0]! : null;
}

/** The preset amount, or the line items' total; null when the customer picks the amount. */
export function amountDue(checkout: Pick<CheckoutRow, 'fixed_amount_cents' | 'line_items_total_amount_cents'>): number | null {
  return checkout.fixed_amount_cents ?? checkout.line_items_total_amount_cents ?? null;
}

/** The checkout response's line item plus `kind`, so the page renders shipping and tax lines as such. */
function presentWalletLineItem(item: StoredLineItem) {
  return { ...presentLineItem(item), kind: item.kind };
}
