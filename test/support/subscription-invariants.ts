import type { Db } from '../../src/storage/db';

/**
 * Money invariants of subscriptions, checked against the database; for scripted tests and for the
 * property suite of the money-safety work to call after every command. Answers the violations
 * found (empty when all hold), so a caller can print them all at once.
 */
export async function subscriptionViolations(db: Db, merchantId?: string): Promise<string[]> {
  const scope = (query: ReturnType<Db>) => (merchantId ? query.where('s.merchant_id', merchantId) : query);
  const violations: string[] = [];

  // At most one successful charge per subscription period (the partial unique index guarantees it too).
  const doubled = await scope(db('charges as c').join('subscriptions as s', 's.id', 'c.subscription_id'))
    .where('c.status', 'succeeded')
    .groupBy('c.subscription_id', 'c.subscription_period')
    .havingRaw('count(*) > 1')
    .select('c.subscription_id', 'c.subscription_period');
  for (const row of doubled) violations.push(`${row.subscription_id}: more than one succeeded charge for period ${row.subscription_period}`);

  // No charge for a period beyond the one now due, and no paid period the subscription does not count.
  const ahead = await scope(db('charges as c').join('subscriptions as s', 's.id', 'c.subscription_id'))
    .where((q) => q.whereRaw('c.subscription_period > s.period + 1').orWhere((paid) => paid.where('c.status', 'succeeded').whereRaw('c.subscription_period > s.period')))
    .select('c.id', 'c.subscription_id', 'c.subscription_period', 'c.status');
  for (const row of ahead) violations.push(`${row.subscription_id}: charge ${row.id} (${row.status}) for period ${row.subscription_period} is beyond the subscription's period`);

  // Every charge of a subscription bills its amount to its customer, on its checkout.
  const foreign = await scope(db('charges as c').join('subscriptions as s', 's.id', 'c.subscription_id'))
    .where((q) => q.whereRaw('c.amount_cents <> s.amount_cents').orWhereRaw('c.customer_id <> s.customer_id').orWhereRaw('c.checkout_id <> s.checkout_id'))
    .select('c.id', 'c.subscription_id');
  for (const row of foreign) violations.push(`${row.subscription_id}: charge ${row.id} does not match its subscription's amount, customer or checkout`);

  // A live subscription counts every renewal of its due period that ended unpaid (failed, or
  // cancelled while pending) as a failed attempt: none leaves it due on a charge that has ended.
  const uncounted = await scope(db('subscriptions as s'))
    .whereNot('s.status', 'cancelled')
    .select('s.id', 's.failed_attempts')
    .select(
      db('charges as c')
        .count('*')
        .whereRaw('c.subscription_id = s.id')
        .whereRaw('c.subscription_period = s.period + 1')
        .whereIn('c.status', ['failed', 'cancelled'])
        .as('unpaid'),
    );
  for (const row of uncounted) {
    if (Number(row.unpaid) !== Number(row.failed_attempts)) violations.push(`${row.id}: ${row.unpaid} renewal charges of the due period ended unpaid, but failed_attempts is ${row.failed_attempts}`);
  }

  // A cancelled subscription has nothing due and nothing in flight.
  const live = await scope(db('subscriptions as s'))
    .where('s.status', 'cancelled')
    .where((q) => q.whereNotNull('s.next_charge_at').orWhereExists(db('charges as c').whereRaw('c.subscription_id = s.id').whereIn('c.status', ['created', 'pending'])))
    .select('s.id');
  for (const row of live) violations.push(`${row.id}: cancelled but a charge is due or in flight`);
  return violations;
}
