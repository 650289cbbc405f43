import { runPrepared, runPreparedSideBySide, type Db } from './db';
import type { CustomerRow } from './customers';
import { withDefaults, type MerchantRow } from './merchants';
import type { PaymentMethodRow } from './payment-methods';
import { DEFAULT_ATTEMPT_SLOT_SECONDS } from '../config';
import type { AttemptLogEntry } from './attempt-log';
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
  /** The merchant's attempt limit when the checkout was created; null for checkouts older than the limit. */
  max_attempts: number | null;
  attempts_count: number;
  attempt_slot_until: Date | null;
  /** The attempt key of the attempt holding the slot (null for a slot taken before it was recorded). */
  attempt_slot_key: string | null;
  /** While a review is pending: how long the checkout had left when the review started (expiry is paused). */
  expiry_remaining_ms: number | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

export type NewCheckout = Omit<
  CheckoutRow,
  'state' | 'blocked_reason' | 'attempts_count' | 'attempt_slot_until' | 'attempt_slot_key' | 'expiry_remaining_ms' | 'created_at' | 'updated_at'
>;

/** The merchant's checkout; another merchant's is absent, exactly like a missing one. */
export async function findCheckout(db: Db, merchantId: string, id: string): Promise<CheckoutRow | undefined> {
  return db<CheckoutRow>('checkouts').where({ merchant_id: merchantId, id }).first();
}

/**
 * By id alone: for the worker's activities, and for the wallet, which has no merchant credential
 * and proves access with the checkout's client secret (the caller compares client_secret_hash
 * before using the row).
 */
export async function findCheckoutByIdUnscoped(db: Db, id: string): Promise<CheckoutRow | undefined> {
  return (await runPrepared<CheckoutRow>(db, 'SELECT * FROM checkouts WHERE id = $1', [id]))[0];
}

/**
 * A checkout by id with the rows an attempt on it reads beside it: its merchant, the payment method
 * and the customer, each as findMerchant, findPaymentMethod and findCustomer read it (the method
 * and the customer within that merchant), in one statement, with the merchant row's version (xmin,
 * as findMerchantWithVersion reads it). The merchant and customer ids are those the caller expects
 * the checkout to have; it compares them with the checkout's. Undefined when the checkout does not
 * exist; a missing row of the others is undefined in its place.
 */
export async function findCheckoutWithAttemptRows(
  db: Db,
  ids: { checkoutId: string; merchantId: string; customerId: string; paymentMethodId: string },
): Promise<{ checkout: CheckoutRow; merchant?: MerchantRow; merchantVersion?: string; paymentMethod?: PaymentMethodRow; customer?: CustomerRow } | undefined> {
  const [row] = await runPreparedSideBySide(
    db,
    'SELECT ch.*, m.*, p.*, c.*, m.xmin::text AS merchant_version FROM checkouts ch ' +
      'LEFT JOIN merchants m ON m.id = $2 ' +
      'LEFT JOIN payment_methods p ON p.merchant_id = $2 AND p.id = $3 ' +
      'LEFT JOIN customers c ON c.merchant_id = $2 AND c.id = $4 ' +
      'WHERE ch.id = $1',
    [ids.checkoutId, ids.merchantId, ids.paymentMethodId, ids.customerId],
  );
  if (!row) return undefined;
  const [checkout, merchant, paymentMethod, customer, version] = row;
  return {
    checkout: checkout as unknown as CheckoutRow,
    merchant: withDefaults(merchant as unknown as MerchantRow | undefined),
    merchantVersion: version?.merchant_version as string | undefined,
    paymentMethod: paymentMethod as unknown as PaymentMethodRow | undefined,
    customer: customer as unknown as CustomerRow | undefined,
  };
}

/**
 * By id alone, as findCheckoutByIdUnscoped, with the version of its merchant's row (xmin) read in
 * the same statement: the wallet then takes the merchant from the credential cache when the cache
 * holds that version (CredentialCache.merchantAt), without a round trip of its own.
 */
export async function findCheckoutWithMerchantVersionUnscoped(db: Db, id: string): Promise<{ checkout: CheckoutRow; merchantVersion: string } | undefined> {
  const [row] = await runPrepared<CheckoutRow & { merchant_version: string }>(
    db,
    'SELECT c.*, m.xmin::text AS merchant_version FROM checkouts c JOIN merchants m ON m.id = c.merchant_id WHERE c.id = $1',
    [id],
  );
  if (!row) return undefined;
  const { merchant_version: merchantVersion, ...checkout } = row;
  return { checkout, merchantVersion };
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
  changes: { blocked_reason?: string | null; expiry_remaining_ms?: number | null; expiresInMs?: number } = {},
): Promise<CheckoutRow | undefined> {
  const { expiresInMs, ...columns } = changes;
  // A new deadline counts from the database's clock, the one every charge insert checks it against.
  const deadline = expiresInMs === undefined ? {} : { expires_at: db.raw('now() + make_interval(secs => ?)', [expiresInMs / 1000]) as unknown as Date };
  const [row] = await db<CheckoutRow>('checkouts')
    .where({ id })
    .whereIn('state', [...from])
    .update({ ...columns, ...deadline, state: to, updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row as CheckoutRow | undefined;
}

/**
 * An open checkout goes into review, keeping the time left before its deadline, only if that
 * deadline has not passed by the database's clock (the clock every charge insert checks): a
 * review started after it could never lead to a charge. Answers the row, or undefined.
 */
export async function pauseCheckoutForReview(db: Db, id: string): Promise<CheckoutRow | undefined> {
  const [row] = await db<CheckoutRow>('checkouts')
    .where({ id, state: 'open' })
    .whereRaw('expires_at > now()')
    .update({
      state: 'in_review',
      expiry_remaining_ms: db.raw('floor(extract(epoch from (expires_at - now())) * 1000)::bigint') as unknown as number,
      updated_at: db.fn.now() as unknown as Date,
    })
    .returning('*');
  return row as CheckoutRow | undefined;
}

/** Charge statuses that mean an attempt is still under way: the checkout takes no new one. */
const IN_PROGRESS_CHARGE_STATUSES = ['created', 'pending', 'held'];
/** SQL, in a statement on `checkouts`: no charge of that checkout is in progress (`statuses` binds IN_PROGRESS_CHARGE_STATUSES). */
const noChargeInProgress = (statuses = '?') => `NOT EXISTS (SELECT 1 FROM charges WHERE charges.checkout_id = checkouts.id AND charges.status = ANY(${statuses}))`;
const NO_CHARGE_IN_PROGRESS = noChargeInProgress();

/**
 * Of every merchant (the worker's sweep, never a request): expires, in one transaction, up to
 * `limit` open checkouts whose deadline passed more than `graceMs` ago and that no charge in
 * progress holds, and returns them. Two statements on purpose: the first locks the rows (skipping those another sweep or an attempt holds); the
 * second takes its snapshot after the locks, so it sees every charge whose insert (which
 * updates the same row) committed before them, and a charge insert after them finds the
 * checkout expired. A checkout with a charge in progress is left to its workflow.
 */
export async function expireOverdueCheckoutsUnscoped(trx: Db, graceMs: number, limit: number, only?: string): Promise<CheckoutRow[]> {
  // The charge test here only keeps checkouts a charge holds (a bank transfer pending for days)
  // from filling every batch; the one that decides is the second statement's.
  const locked = await trx.raw(
    `SELECT id FROM checkouts
      WHERE state = 'open' AND expires_at <= now() - make_interval(secs => ?)
        AND ${NO_CHARGE_IN_PROGRESS}${only === undefined ? '' : ' AND id = ?'}
      ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED`,
    [graceMs / 1000, IN_PROGRESS_CHARGE_STATUSES, ...(only === undefined ? [] : [only]), limit],
  );
  const ids = (locked.rows as Array<{ id: string }>).map((r) => r.id);
  if (ids.length === 0) return [];
  const expired = await trx.raw(
    `UPDATE checkouts SET state = 'expired', updated_at = now()
      WHERE id = ANY(?) AND state = 'open' AND expires_at <= now()
        AND ${NO_CHARGE_IN_PROGRESS}
      RETURNING *`,
    [ids, IN_PROGRESS_CHARGE_STATUSES],
  );
  return expired.rows as CheckoutRow[];
}


export type AdmissionRefusal = 'not_open' | 'expired' | 'attempt_limit' | 'attempt_in_flight';

/** The admission's compare-and-set (see admitAttempt), its placeholders numbered from after the first `from`. */
const admitSql = (from: number) => `UPDATE checkouts SET attempts_count = attempts_count + 1,
        attempt_slot_until = now() + make_interval(secs => $${from + 1}), attempt_slot_key = $${from + 4}, updated_at = now()
  WHERE id = $${from + 2} AND state = 'open' AND expires_at > now()
    AND (attempt_slot_until IS NULL OR attempt_slot_until < now())
    AND (max_attempts IS NULL OR attempts_count < max_attempts)
    AND ${noChargeInProgress(`$${from + 3}`)}
  RETURNING id`;
const ADMIT_SQL = admitSql(0);
const LOG_AND_ADMIT_SQL = `WITH logged AS (
  INSERT INTO attempt_log (merchant_id, checkout_id, customer_id, fingerprint, number_key, client_ip) VALUES ($1, $2, $3, $4, $5, $6))
${admitSql(6)}`;

/**
 * Admits one payment attempt with a single compare-and-set on the checkout row, which records the
 * attempt's key as the slot's holder: it succeeds only
 * while the checkout is open and unexpired, no other admitted attempt holds it, none of its charges
 * is created, pending or held, and the attempt limit is not reached. Nothing is tokenized or
 * written for an attempt before this, so concurrent attempts make one payment method and one charge.
 * With `log`, the attempt's attempt_log line is written by the same statement (one commit),
 * whether or not it is admitted, as an attempt logged first and then refused.
 * Answers null when admitted, otherwise why not.
 */
export async function admitAttempt(db: Db, id: string, attemptKey: string, log: AttemptLogEntry | null = null, slotSeconds = DEFAULT_ATTEMPT_SLOT_SECONDS): Promise<AdmissionRefusal | null> {
  const admission = [slotSeconds, id, IN_PROGRESS_CHARGE_STATUSES, attemptKey];
  const admitted = log
    ? await runPrepared(db, LOG_AND_ADMIT_SQL, [log.merchant_id, log.checkout_id, log.customer_id, log.fingerprint, log.number_key, log.client_ip, ...admission])
    : await runPrepared(db, ADMIT_SQL, admission);
  if (admitted.length > 0) return null;
  const row = await findCheckoutByIdUnscoped(db, id);
  if (!row || row.state !== 'open') return 'not_open';
  if (row.expires_at.getTime() <= Date.now()) return 'expired';
  if (row.max_attempts !== null && row.attempts_count >= row.max_attempts) return 'attempt_limit';
  return 'attempt_in_flight';
}

/**
 * Frees the checkout for the next attempt once the workflow has answered this one without a charge,
 * or its request gave up: only while this attempt holds the slot, never another attempt's.
 */
export async function releaseAttemptSlot(db: Db, id: string, attemptKey: string): Promise<void> {
  await db('checkouts')
    .where({ id })
    .where((q) => q.where({ attempt_slot_key: attemptKey }).orWhereNull('attempt_slot_key'))
    .update({ attempt_slot_until: null, attempt_slot_key: null });
}
