// An accepted delivery attempt and its event's `delivered` status are written together: no reader
// of the event log (the merchant's, the operator's, a sweep) ever sees the one without the other.
// A deferred constraint trigger, installed for this file only, refuses any commit that leaves an
// accepted attempt beside an event that is not delivered; every delivery path must pass it.
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, openShop, waitFor } from '../../support/fixtures';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env), {
  service: { env: { WEBHOOK_RETRY_INITIAL_MS: '200' } },
  afterStart: async ({ service: s }) => {
    await s.deps.db.raw(`
      CREATE FUNCTION accepted_attempt_needs_delivered_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.http_status BETWEEN 200 AND 299 AND (SELECT delivery_status FROM events WHERE id = NEW.event_id) <> 'delivered' THEN
          RAISE EXCEPTION 'accepted attempt % of event % committed while the event is not delivered', NEW.id, NEW.event_id;
        END IF;
        RETURN NULL;
      END $$`);
    await s.deps.db.raw(`
      CREATE CONSTRAINT TRIGGER accepted_attempt_needs_delivered_event AFTER INSERT OR UPDATE ON event_delivery_attempts
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION accepted_attempt_needs_delivered_event()`);
  },
});

const eventOf = (checkoutId: string, type: string) => service.deps.db('events').where({ checkout_id: checkoutId, type }).first();
const acceptedAttempts = (eventId: string) => service.deps.db('event_delivery_attempts').where({ event_id: eventId }).whereBetween('http_status', [200, 299]);

async function deliveredWithItsAttempt(checkoutId: string, type: string): Promise<void> {
  const event = await waitFor(() => eventOf(checkoutId, type), 15_000, type);
  await waitFor(async () => (await eventOf(checkoutId, type)).delivery_status === 'delivered', 15_000, `${type} delivered`);
  expect(await acceptedAttempts(event.id)).toHaveLength(1);
}

describe('an accepted delivery attempt and its event status', () => {
  it('are one write for an event delivered at its first attempt', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1500 });
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(201);
    await deliveredWithItsAttempt(checkout.id, 'checkout.succeeded');
    expect((await eventOf(checkout.id, 'checkout.succeeded')).dispatched_at).not.toBeNull();
  });

  it('are one write for an event delivered by its retries', async () => {
    const refusedOnce = new Set<string>();
    receiver.responder = (r) => {
      const id = r.body?.event_id as string | undefined;
      if (r.body?.type !== 'checkout.succeeded' || !id || refusedOnce.has(id)) return { status: 200 };
      refusedOnce.add(id);
      return { status: 500 };
    };
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1600 });
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(201);
    await deliveredWithItsAttempt(checkout.id, 'checkout.succeeded');
    const event = await eventOf(checkout.id, 'checkout.succeeded');
    expect(await service.deps.db('event_delivery_attempts').where({ event_id: event.id })).toHaveLength(2);
  });

  it('are one write for a hold the merchant accepted', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 700 });
    const paid = await attempt(service, checkout, { payment_method: CARD() });
    expect(paid.status).toBe(201);
    expect(paid.body.charge.status).toBe('held');
    await deliveredWithItsAttempt(checkout.id, 'checkout.hold');
  });
});
