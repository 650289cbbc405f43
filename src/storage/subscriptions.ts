import type { Db } from './db';
import type { CancellationReason, StoredSubscriptionStatus } from '../domain/subscriptions';
import type { SubscriptionInterval } from '../domain/subscription-calendar';

export interface SubscriptionRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  checkout_id: string;
  payment_method_id: string;
  first_charge_id: string;
  status: StoredSubscriptionStatus;
  interval: SubscriptionInterval;
  interval_count: number;
  amount_cents: number;
  currency: string;
  anchor_at: Date;
  period: number;
  current_period_start: Date;
  current_period_end: Date;
  next_charge_at: Date | null;
  failed_attempts: number;
  cancel_at_period_end: boolean;
  cancelled_at: Date | null;
  cancellation_reason: CancellationReason | null;
  clock_offset_ms: number;
  workflow_started_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewSubscription = Omit<
  SubscriptionRow,
  'failed_attempts' | 'cancel_at_period_end' | 'cancelled_at' | 'cancellation_reason' | 'workflow_started_at' | 'created_at' | 'updated_at'
>;

export type SubscriptionChanges = Partial<
  Pick<
    SubscriptionRow,
    | 'status'
    | 'period'
    | 'current_period_start'
    | 'current_period_end'
    | 'next_charge_at'
    | 'failed_attempts'
    | 'cancel_at_period_end'
    | 'cancelled_at'
    | 'cancellation_reason'
    | 'payment_method_id'
  >
>;

export async function insertSubscription(db: Db, row: NewSubscription): Promise<SubscriptionRow> {
  const [inserted] = await db<SubscriptionRow>('subscriptions').insert(row).returning('*');
  return inserted as SubscriptionRow;
}

/** The merchant's subscription; another merchant's is absent, exactly like a missing one. */
export async function findSubscription(db: Db, merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
  return db<SubscriptionRow>('subscriptions').where({ merchant_id: merchantId, id }).first();
}

/** Unscoped: for the worker (workflows name subscriptions by id) and the operator's admin API. */
export async function findSubscriptionByIdUnscoped(db: Db, id: string, lock = false): Promise<SubscriptionRow | undefined> {
  const query = db<SubscriptionRow>('subscriptions').where({ id });
  return (lock ? query.forUpdate() : query).first();
}

/** The subscription a checkout created (at most one: checkout_id is unique). */
export async function findCheckoutSubscription(db: Db, checkoutId: string): Promise<SubscriptionRow | undefined> {
  return db<SubscriptionRow>('subscriptions').where({ checkout_id: checkoutId }).first();
}

export async function updateSubscription(db: Db, id: string, changes: SubscriptionChanges): Promise<SubscriptionRow> {
  const [row] = await db<SubscriptionRow>('subscriptions')
    .where({ id })
    .update({ ...changes, updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row as SubscriptionRow;
}

/** Moves the test clock forward only (a concurrent smaller advance never winds it back). */
export async function advanceSubscriptionClock(db: Db, id: string, offsetMs: number): Promise<SubscriptionRow> {
  const [row] = await db<SubscriptionRow>('subscriptions')
    .where({ id })
    .update({ clock_offset_ms: db.raw('GREATEST(clock_offset_ms, ?)', [offsetMs]) as unknown as number, updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row as SubscriptionRow;
}

export async function markWorkflowStarted(db: Db, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db('subscriptions').whereIn('id', ids).whereNull('workflow_started_at').update({ workflow_started_at: db.fn.now() });
}

/** Live subscriptions whose workflow start is not recorded, committed at least `graceMs` ago (the sweeper's). */
export async function findUnstartedSubscriptionsUnscoped(db: Db, graceMs: number, limit: number): Promise<SubscriptionRow[]> {
  return db<SubscriptionRow>('subscriptions')
    .whereNull('workflow_started_at')
    .whereNot({ status: 'cancelled' })
    .where('created_at', '<', db.raw(`now() - (? * interval '1 millisecond')`, [graceMs]))
    .orderBy('created_at')
    .limit(limit);
}

/** A sandbox customer's test clock offset (0 when none was set). */
export async function customerClockOffset(db: Db, merchantId: string, customerId: string): Promise<number> {
  const row = await db('customer_test_clocks').where({ merchant_id: merchantId, customer_id: customerId }).first();
  return row ? Number(row.offset_ms) : 0;
}

export async function setCustomerClockOffset(db: Db, merchantId: string, customerId: string, offsetMs: number): Promise<void> {
  await db('customer_test_clocks')
    .insert({ customer_id: customerId, merchant_id: merchantId, offset_ms: offsetMs })
    .onConflict('customer_id')
    .merge({ offset_ms: offsetMs, updated_at: db.fn.now() });
}
