import { runPrepared, type Db } from './db';
import { EVENT_COLUMNS, eventFromJson, type EventInsert, type EventJson, type EventRow } from './events';
import type { ChargeStatus } from '../domain/charge-states';

export interface ChargeRow {
  id: string;
  merchant_id: string;
  checkout_id: string;
  customer_id: string;
  payment_method_id: string;
  attempt_key: string;
  amount_cents: number;
  currency: string;
  transaction_type: 'credit' | 'debit';
  status: ChargeStatus;
  failure_code: string | null;
  failure_message: string | null;
  processor: string;
  processor_charge_id: string | null;
  avs_result: string | null;
  cvv_result: string | null;
  network_authorization_code: string | null;
  threeds: Record<string, unknown> | null;
  /** When checkout.hold was sent for this charge (at most once). */
  hold_sent_at: Date | null;
  /** When the merchant answered the hold with a 2xx: it holds the customer's funds from then on. */
  hold_accepted_at: Date | null;
  /** When checkout.release_hold was recorded for this charge (at most once). */
  hold_released_at: Date | null;
  /** Set on a subscription's charges: its first charge (period 0) and its renewals (1, 2, ...). */
  subscription_id: string | null;
  subscription_period: number | null;
  /** Lease columns of the reconciler (src/storage/charge-leases.ts). */
  attempt_seen_at?: Date | null;
  reconcile_claimed_at?: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewCharge = Pick<
  ChargeRow,
  'id' | 'merchant_id' | 'checkout_id' | 'customer_id' | 'payment_method_id' | 'attempt_key' | 'amount_cents' | 'currency' | 'transaction_type' | 'processor'
> &
  Partial<Pick<ChargeRow, 'subscription_id' | 'subscription_period'>>;

/**
 * Inserts the attempt's charge at `created`, or answers the one a previous try of the same
 * attempt already inserted (attempt_key is unique), so a retried activity never charges twice.
 */
export async function insertChargeOnce(db: Db, charge: NewCharge): Promise<ChargeRow> {
  const inserted = await db<ChargeRow>('charges')
    .insert({ ...charge, status: 'created' })
    .onConflict('attempt_key')
    .ignore()
    .returning('*');
  if (inserted[0]) return inserted[0] as ChargeRow;
  return (await findChargeByAttemptKeyUnscoped(db, charge.attempt_key))!;
}

/**
 * The attempt's charge at `created`, inserted only while its checkout is open and unexpired by the
 * database's clock and its customer is not restricted, in one statement that also frees the
 * checkout's attempt slot: from this commit the created charge keeps other attempts out. With
 * `slotHeld` (a wallet attempt's charge, not an approval's) only while its own admitted attempt
 * still holds that slot: a request that answered 503 frees it first, so its attempt, should Temporal run
 * it later after all, makes no charge (src/wallet/attempts.ts). The
 * customer row is key-share locked, so a restriction committing meanwhile (restrictCustomer locks
 * the row for update) either is seen here or comes after this charge: the admission policy's
 * restriction check, made just before, cannot be overtaken by one. Answers the charge a previous
 * try of the same attempt inserted (attempt_key is unique), whatever the checkout's state now, with
 * `inserted` false; undefined when there is none and the checkout is no longer live or its customer
 * is restricted.
 */
export async function insertChargeWhileLive(db: Db, charge: NewCharge, { slotHeld }: { slotHeld: boolean }): Promise<{ charge: ChargeRow; inserted: boolean } | undefined> {
  const [row] = await runPrepared<ChargeRow>(db, insertWhileLiveSql(Object.keys(charge), slotHeld), [charge.customer_id, charge.checkout_id, JSON.stringify(charge)]);
  if (row) return { charge: row, inserted: true };
  const earlier = await findChargeByAttemptKeyUnscoped(db, charge.attempt_key);
  return earlier && { charge: earlier, inserted: false };
}

/**
 * The charge's own attempt holds the checkout's slot (its key recorded by the admission; a slot
 * taken before keys were recorded has none).
 */
const SLOT_HELD_BY_THIS_ATTEMPT = ` AND attempt_slot_until IS NOT NULL AND (attempt_slot_key IS NULL OR attempt_slot_key = $3::jsonb->>'attempt_key')`;

/** insertChargeWhileLive's statement for a charge with these columns (the same few sets every time). */
function insertWhileLiveSql(columns: string[], slotHeld: boolean): string {
  const list = columns.map((c) => `"${c}"`).join(', ');
  return `WITH unrestricted AS (
     SELECT id FROM customers WHERE id = $1 AND restriction_reason IS NULL FOR KEY SHARE),
   live AS (
     UPDATE checkouts SET attempt_slot_until = NULL, attempt_slot_key = NULL
      WHERE id = $2 AND state = 'open' AND expires_at > now() AND EXISTS (SELECT 1 FROM unrestricted)${slotHeld ? SLOT_HELD_BY_THIS_ATTEMPT : ''} RETURNING id)
   INSERT INTO charges (${list}, status)
   SELECT ${columns.map((c) => `r."${c}"`).join(', ')}, 'created' FROM live, jsonb_populate_record(NULL::charges, $3::jsonb) AS r
   ON CONFLICT (attempt_key) DO NOTHING
   RETURNING *`;
}

export async function findChargeByAttemptKeyUnscoped(db: Db, attemptKey: string): Promise<ChargeRow | undefined> {
  return db<ChargeRow>('charges').where({ attempt_key: attemptKey }).first();
}

export async function findCharge(db: Db, merchantId: string, id: string): Promise<ChargeRow | undefined> {
  return db<ChargeRow>('charges').where({ merchant_id: merchantId, id }).first();
}

export async function findChargeByIdUnscoped(db: Db, id: string): Promise<ChargeRow | undefined> {
  return db<ChargeRow>('charges').where({ id }).first();
}

/** The checkout's own attempts; a subscription's renewal charges belong to the subscription, not to the page. */
export async function listCheckoutCharges(db: Db, checkoutId: string): Promise<ChargeRow[]> {
  return db<ChargeRow>('charges')
    .where({ checkout_id: checkoutId })
    .where((q) => q.whereNull('subscription_period').orWhere('subscription_period', 0))
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

/** Every charge of a subscription, its first charge included, in period and attempt order. */
export async function listSubscriptionCharges(db: Db, subscriptionId: string): Promise<ChargeRow[]> {
  return db<ChargeRow>('charges')
    .where({ subscription_id: subscriptionId })
    .orderBy([{ column: 'subscription_period' }, { column: 'created_at' }, { column: 'id' }]);
}

/** Names the subscription a checkout's first charge created (period 0). */
export async function linkChargeToSubscription(db: Db, chargeId: string, subscriptionId: string): Promise<void> {
  await db('charges').where({ id: chargeId }).update({ subscription_id: subscriptionId, subscription_period: 0 });
}

export type ChargeChanges = Partial<
  Pick<ChargeRow, 'failure_code' | 'failure_message' | 'processor_charge_id' | 'avs_result' | 'cvv_result' | 'network_authorization_code' | 'threeds'>
>;

/**
 * Compare-and-set: moves the charge only if it is still in `from`; answers the moved row or
 * undefined. `releasesHold` marks the hold released (hold_released_at) in the same write.
 */
export async function moveChargeStatus(db: Db, id: string, from: ChargeStatus, to: ChargeStatus, changes: ChargeChanges, releasesHold = false): Promise<ChargeRow | undefined> {
  const columns = changedColumns(changes);
  const values = columns.map((column) => changeValue(changes, column));
  const [row] = await runPrepared<ChargeRow>(db, moveSql(columns, releasesHold), [id, from, to, ...values]);
  return row;
}

/** moveChargeStatus's statement for these changed columns (the same few sets every time). */
function moveSql(columns: string[], releasesHold: boolean): string {
  return `UPDATE charges SET ${moveSets(columns, releasesHold)} WHERE id = $1 AND status = $2 RETURNING *`;
}

/** The SET list of a move: the changed columns from $4 on, the status ($3), the times. */
function moveSets(columns: string[], releasesHold: boolean): string {
  return [...columns.map((column, i) => `"${column}" = $${i + 4}`), 'status = $3', 'updated_at = now()', ...(releasesHold ? ['hold_released_at = now()'] : [])].join(', ');
}

/** The charge's columns a move decides by, as its mover last read them. */
export type MoveBasis = Pick<ChargeRow, 'status' | 'hold_accepted_at' | 'hold_released_at' | 'failure_code' | 'failure_message'>;

export interface RecordedMove {
  charge: ChargeRow;
  /** The events the statement inserted, in the order given. */
  events: EventRow[];
}

/**
 * A whole move in one statement, for a mover that decided it from the charge as it last read it
 * (`basis`): the compare-and-set moves the charge only while every column the decision went by is
 * still as read (its status, whether its hold was accepted or released, and the failure the events
 * repeat unless the move sets it), and only then the checkout is completed (`completeCheckoutId`)
 * and the events are inserted, in their order. With `merchantVersion`, the events were made from
 * the merchant row at that version, and the move is made only while the row is still at it.
 * Answers undefined, having written nothing, when the charge (or that merchant row) changed meanwhile.
 */
export async function moveChargeRecording(
  db: Db,
  move: { id: string; to: ChargeStatus; changes: ChargeChanges; releasesHold: boolean; basis: MoveBasis; completeCheckoutId: string | null; merchantVersion?: string },
  events: readonly EventInsert[],
): Promise<RecordedMove | undefined> {
  const { id, to, changes, releasesHold, basis, completeCheckoutId, merchantVersion } = move;
  const columns = changedColumns(changes);
  const values = columns.map((column) => changeValue(changes, column));
  // The failure the events repeat is the row's unless the move sets it.
  const kept = (['failure_code', 'failure_message'] as const).filter((column) => !columns.includes(column));
  const params: unknown[] = [id, basis.status, to, ...values, basis.hold_accepted_at === null, basis.hold_released_at === null, ...kept.map((column) => basis[column])];
  let n = 3 + values.length;
  const conditions = [`(hold_accepted_at IS NULL) = $${++n}`, `(hold_released_at IS NULL) = $${++n}`, ...kept.map((column) => `"${column}" IS NOT DISTINCT FROM $${++n}::text`)];
  if (merchantVersion !== undefined) {
    params.push(merchantVersion);
    conditions.push(`EXISTS (SELECT 1 FROM merchants m WHERE m.id = charges.merchant_id AND m.xmin::text = $${++n})`);
  }
  const ctes = [`moved AS (UPDATE charges SET ${moveSets(columns, releasesHold)} WHERE id = $1 AND status = $2 AND ${conditions.join(' AND ')} RETURNING *)`];
  if (completeCheckoutId !== null) {
    params.push(completeCheckoutId);
    ctes.push(`completed AS (UPDATE checkouts SET state = 'completed', updated_at = now() WHERE id = $${++n} AND state IN ('open', 'in_review') AND EXISTS (SELECT 1 FROM moved))`);
  }
  params.push(JSON.stringify(events.map((event) => Object.fromEntries(EVENT_COLUMNS.map((column) => [column, event[column] ?? null])))));
  ctes.push(
    `recorded AS (INSERT INTO events (${EVENT_COLUMNS.map((column) => `"${column}"`).join(', ')}) ` +
      `SELECT ${EVENT_COLUMNS.map((column) => `e."${column}"`).join(', ')} FROM json_populate_recordset(NULL::events, $${++n}::json) WITH ORDINALITY AS e ` +
      `WHERE EXISTS (SELECT 1 FROM moved) ORDER BY e.ordinality RETURNING *)`,
  );
  const text = `WITH ${ctes.join(', ')} SELECT moved.*, (SELECT coalesce(json_agg(r ORDER BY r.seq), '[]') FROM recorded r) AS recorded_events FROM moved`;
  const [row] = await runPrepared<ChargeRow & { recorded_events: EventJson[] }>(db, text, params);
  if (!row) return undefined;
  const { recorded_events: recorded, ...charge } = row;
  return { charge, events: recorded.map(eventFromJson) };
}

/** The columns a move sets: those of `changes` that are defined. */
export function definedChanges(changes: ChargeChanges): ChargeChanges {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}

function changedColumns(changes: ChargeChanges): Array<keyof ChargeChanges> {
  return Object.keys(definedChanges(changes)) as Array<keyof ChargeChanges>;
}

function changeValue(changes: ChargeChanges, column: keyof ChargeChanges): unknown {
  return column === 'threeds' && changes.threeds !== null ? JSON.stringify(changes.threeds) : changes[column];
}

/**
 * Claims the charge's one hold handshake, inside the caller's transaction (which records the hold
 * event with it): only a charge still `created` whose hold was never sent nor released. From this
 * commit on, the hold's POST may have started, so the claim is the last write before it: each
 * statement left in the transaction is given at most `statementLimitMs`, and one that waits longer
 * (a lock, a slow server) fails the claim rather than leave the POST less time than it was counted.
 * Answers the claimed row, or undefined when the charge moved on or its hold was already sent.
 */
export async function claimHold(trx: Db, id: string, statementLimitMs: number): Promise<ChargeRow | undefined> {
  await trx.raw(`SELECT set_config('statement_timeout', ?, true)`, [`${Math.max(1, Math.round(statementLimitMs))}ms`]);
  const [row] = await trx<ChargeRow>('charges')
    .where({ id, status: 'created' })
    .whereNull('hold_sent_at')
    .whereNull('hold_released_at')
    .update({ hold_sent_at: trx.fn.now() as unknown as Date })
    .returning('*');
  return row as ChargeRow | undefined;
}

/** Marks the merchant's acceptance of the hold, and its release in the same write when `releasesHold`. */
export async function markHoldAccepted(db: Db, id: string, releasesHold: boolean): Promise<void> {
  await db('charges')
    .where({ id })
    .update({ hold_accepted_at: db.fn.now(), ...(releasesHold ? { hold_released_at: db.fn.now() } : {}) });
}

/** The charge locked for the rest of the transaction. */
export async function lockChargeUnscoped(db: Db, id: string): Promise<ChargeRow | undefined> {
  return (await runPrepared<ChargeRow>(db, 'SELECT * FROM charges WHERE id = $1 FOR UPDATE', [id]))[0];
}

/**
 * The first charge made with a payment method: the method was tokenized for it, so its processor
 * issued the token. A later charge may have gone through another processor (the merchant switched).
 */
export async function findFirstChargeOfMethod(db: Db, paymentMethodId: string): Promise<ChargeRow | undefined> {
  return db<ChargeRow>('charges').where({ payment_method_id: paymentMethodId }).orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }]).first();
}

/** The merchant's charges created since `since` that are succeeded now: count and cents per transaction type. */
export async function sumSucceededChargesSince(db: Db, merchantId: string, since: Date): Promise<Array<{ transaction_type: ChargeRow['transaction_type']; count: number; amount_cents: number }>> {
  const rows: Array<{ transaction_type: ChargeRow['transaction_type']; count: string | number; amount_cents: string | number | null }> = await db('charges')
    .where({ merchant_id: merchantId, status: 'succeeded' })
    .where('created_at', '>=', since)
    .groupBy('transaction_type')
    .select('transaction_type')
    .count({ count: '*' })
    .sum({ amount_cents: 'amount_cents' });
  return rows.map((r) => ({ transaction_type: r.transaction_type, count: Number(r.count), amount_cents: Number(r.amount_cents) }));
}
