import type { Service } from '../support/harness';
import { useServiceWithReceiver } from '../support/file-environment';
import type { WebhookReceiver } from '../support/receiver';
import { attempt, CARD, createCheckout, openShop, waitFor, type Shop } from '../support/fixtures';

/**
 * Scaled out: two API processes behind one round-robin address, and two worker processes, each
 * with its own outbox sweeper, all at once (in `npm test` as in `npm run test:cluster`). Many
 * customers pay at the same time, each submitting twice at once through different APIs; then a
 * crash between commit and dispatch is simulated for every event, so both sweepers race to
 * re-dispatch them. Nothing may be lost and nothing may happen twice.
 */
// 16, not 8: with 8 a clean-clone run once found every workflow task of them taken by one worker
// (its polls free at the right moments), failing the check that both workers took part.
const CHECKOUTS = 16;

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env), { service: { replicas: 2 }, timeoutMs: 120_000 });

function deliveriesByEvent(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.requests) counts.set(r.body?.event_id, (counts.get(r.body?.event_id) ?? 0) + 1);
  return counts;
}

async function outboxEvents(shop: Shop): Promise<Array<{ id: string; type: string; checkout_id: string; delivery_status: string; dispatched_at: Date | null }>> {
  return service.deps.db('events').where({ merchant_id: shop.merchant.id, enabled: true, channel: 'outbox' }).orderBy('seq');
}

it('with two APIs, two workers and two sweepers, every charge happens once and every event is delivered once', async () => {
  receiver.responder = () => ({ status: 200 });
  const shop = await openShop(service, { webhook_url: receiver.url });
  const checkouts = await Promise.all(
    Array.from({ length: CHECKOUTS }, () => createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1200 })),
  );

  // Each customer submits twice at once; consecutive requests reach different API processes.
  const answers = await Promise.all(checkouts.map((c) => Promise.all([attempt(service, c, { payment_method: CARD() }), attempt(service, c, { payment_method: CARD() })])));
  for (const pair of answers) {
    expect(pair.map((a) => a.status).filter((s) => s === 201)).toHaveLength(1);
    for (const a of pair) expect(a.status).toBeLessThan(500);
  }
  const charges = await service.deps.db('charges').whereIn('checkout_id', checkouts.map((c) => c.id)).select('checkout_id', 'status');
  expect(charges).toHaveLength(CHECKOUTS);
  expect(new Set(charges.map((c: { checkout_id: string }) => c.checkout_id)).size).toBe(CHECKOUTS);
  expect(charges.every((c: { status: string }) => c.status === 'succeeded')).toBe(true);

  // Every enabled event delivered, exactly once.
  const events = await waitFor(async () => {
    const rows = await outboxEvents(shop);
    const succeeded = rows.filter((e) => e.type === 'checkout.succeeded');
    return succeeded.length === CHECKOUTS && rows.every((e) => e.delivery_status === 'delivered') && rows;
  }, 60_000, 'every event delivered');
  expect(new Set(events.filter((e) => e.type === 'checkout.succeeded').map((e) => e.checkout_id)).size).toBe(CHECKOUTS);
  const delivered = deliveriesByEvent();
  for (const event of events) expect([event.type, delivered.get(event.id)]).toEqual([event.type, 1]);

  // Both APIs took requests, and both workers ran workflow tasks and activities.
  expect([...service.proxy!.served.values()].every((n) => n > 0)).toBe(true);
  expect(service.proxy!.served.size).toBe(2);
  const identities = new Set<string>();
  for (const checkout of checkouts) {
    const history = await service.deps.temporal.workflow.getHandle(checkout.id).fetchHistory();
    for (const event of history.events ?? []) {
      const identity = event.workflowTaskStartedEventAttributes?.identity ?? event.activityTaskStartedEventAttributes?.identity;
      if (identity) identities.add(identity);
    }
  }
  expect(identities.size).toBe(2);

  // A crash between each commit and its dispatch: both sweepers find every event again and race.
  // Such an event was never claimed by a sender, so it holds no delivery lease either.
  const before = receiver.requests.length;
  await service.deps.db('events').whereIn('id', events.map((e) => e.id)).update({ dispatched_at: null, delivery_lease_until: null });
  await waitFor(async () => (await outboxEvents(shop)).every((e) => e.dispatched_at !== null), 30_000, 're-dispatch by the sweepers');
  // Past two more sweeps of each sweeper: still no second delivery of anything.
  await new Promise((r) => setTimeout(r, 1_500));
  expect(receiver.requests.length).toBe(before);
  const attempts = await service.deps.db('event_delivery_attempts').whereIn('event_id', events.map((e) => e.id)).count<{ count: number }[]>('* as count');
  expect(Number(attempts[0]!.count)).toBe(events.length);
}, 180_000);
