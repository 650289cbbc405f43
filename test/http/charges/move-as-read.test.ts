import { applyChargeMove, type MoveRequest } from '../../../src/charges/moves';
import type { ChargeStatus } from '../../../src/domain/charge-states';
import type { ChargeRow } from '../../../src/storage/charges';
import type { CheckoutRow } from '../../../src/storage/checkouts';
import type { CustomerRow } from '../../../src/storage/customers';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import type { WebhookReceiver } from '../../support/receiver';
import { openShop, placedCharge, recordedEvents, type Shop } from '../../support/fixtures';
import { queriesDuring } from '../../support/round-trips';
import { findMerchantWithVersion } from '../../../src/storage/merchants';

/**
 * A move its caller decides from the charge as it last read it (an attempt, after the processor's
 * answer) is one statement after the merchant's read, or one statement alone when the caller read
 * the merchant too; it is made only while the charge (and that merchant row) are still as read, and
 * otherwise left, with nothing written, to the move under the charge's lock.
 */
let service: Service;
let receiver: WebhookReceiver;
let shop: Shop;
useServiceWithReceiver((env) => ({ service, receiver } = env), {
  // No sweeper's query is counted with a move's.
  service: { sweeps: false },
  afterStart: async () => {
    shop = await openShop(service, { webhook_url: receiver.url });
  },
});

type Placed = { charge: ChargeRow; checkout: CheckoutRow; customer: CustomerRow };

/** An open checkout and its charge, a real row placed in `status` (with `columns` set), and the rows a mover would hold. */
async function chargeIn(status: ChargeStatus, type: 'deposit' | 'withdrawal', columns: Partial<ChargeRow> = {}): Promise<Placed> {
  const placed = await placedCharge(service, shop, { status, type, amountCents: 4200, columns });
  const db = service.deps.db;
  return {
    charge: placed.charge,
    checkout: await db('checkouts').where({ id: placed.checkout.id }).first(),
    customer: await db('customers').where({ id: shop.customerId }).first(),
  };
}

const known = ({ charge, checkout, customer }: Placed, asRead: Partial<ChargeRow> = {}) => ({ charge: { ...charge, ...asRead }, checkout, customer });
const move = (request: MoveRequest) => queriesDuring(() => applyChargeMove(service.deps.db, request));
const bodies = async (checkoutId: string) => (await recordedEvents(service, checkoutId)).map((event) => ({ type: event.type, data: JSON.parse(event.body).data }));
const stateOf = async (checkoutId: string) => (await service.deps.db('checkouts').where({ id: checkoutId }).first()).state;
/** An event's data with the ids of its checkout and charge left out, to compare two charges' events. */
const withoutIds = ({ type, data }: { type: string; data: { id: string; charge: { id: string } } }) => ({ type, data: { ...data, id: undefined, charge: { ...data.charge, id: undefined } } });

describe('a move decided from the charge as read', () => {
  it('makes two statements and no transaction, and records what the move under the lock records', async () => {
    const changes = { processor_charge_id: 'sbx_1', avs_result: 'Y', cvv_result: 'M', network_authorization_code: '123456', threeds: null };
    const asRead = await chargeIn('created', 'deposit');
    const locked = await chargeIn('created', 'deposit');
    const fast = await move({ chargeId: asRead.charge.id, from: 'created', to: 'succeeded', changes, known: known(asRead) });
    const slow = await move({ chargeId: locked.charge.id, from: 'created', to: 'succeeded', changes, known: { customer: locked.customer, checkout: locked.checkout } });

    expect(fast.queries.map((q) => q.sql.trim().split(/\s/)[0])).toEqual(['SELECT', 'WITH']);
    expect(slow.queries.map((q) => q.sql.trim().split(/\s/)[0]!.toUpperCase())).toEqual(['BEGIN;', 'SELECT', 'UPDATE', 'UPDATE', 'SELECT', 'INSERT', 'COMMIT;']);
    for (const [{ result }, placed] of [[fast, asRead], [slow, locked]] as const) {
      expect([result.moved, result.charge.status, result.charge.processor_charge_id, result.eventIds.length]).toEqual([true, 'succeeded', 'sbx_1', 1]);
      expect(result.recorded!.events.map((event) => [event.id, event.type, event.delivery_status, event.created_at instanceof Date])).toEqual([[result.eventIds[0], 'checkout.succeeded', 'pending', true]]);
      expect(await stateOf(placed.checkout.id)).toBe('completed');
    }
    expect((await bodies(asRead.checkout.id)).map(withoutIds)).toEqual((await bodies(locked.checkout.id)).map(withoutIds));
    // The charge row answered is the row as written.
    expect(fast.result.charge).toEqual(await service.deps.db('charges').where({ id: asRead.charge.id }).first());
  });

  it('leaves a charge someone else moved since it was read as they left it, recording nothing', async () => {
    const placed = await chargeIn('failed', 'deposit', { failure_code: 'card_declined', failure_message: 'Declined.' });
    const { result } = await move({ chargeId: placed.charge.id, from: 'created', to: 'succeeded', changes: {}, known: known(placed, { status: 'created', failure_code: null, failure_message: null }) });
    expect([result.moved, result.charge.status, result.eventIds]).toEqual([false, 'failed', []]);
    expect([await bodies(placed.checkout.id), await stateOf(placed.checkout.id)]).toEqual([[], 'open']);
  });

  it("releases a withdrawal's hold the merchant accepted after the charge was read", async () => {
    // Read before the acceptance: moved as read, the failure would report no release and the merchant would keep the funds held.
    const placed = await chargeIn('created', 'withdrawal', { hold_sent_at: new Date(), hold_accepted_at: new Date() });
    const { result } = await move({ chargeId: placed.charge.id, from: 'created', to: 'failed', changes: { failure_code: 'insufficient_funds', failure_message: 'No.' }, known: known(placed, { hold_accepted_at: null }) });
    expect([result.moved, result.charge.status, result.charge.hold_released_at instanceof Date]).toEqual([true, 'failed', true]);
    expect((await bodies(placed.checkout.id)).map((event) => event.type)).toEqual(['checkout.failed', 'checkout.release_hold']);
  });

  it('reports the failure the charge has now, when it changed since it was read', async () => {
    const placed = await chargeIn('created', 'deposit', { failure_code: 'processing_error', failure_message: 'Changed meanwhile.' });
    const { result } = await move({ chargeId: placed.charge.id, from: 'created', to: 'failed', changes: {}, known: known(placed, { failure_code: null, failure_message: null }) });
    expect([result.moved, result.charge.failure_code]).toEqual([true, 'processing_error']);
    expect((await bodies(placed.checkout.id)).map((event) => event.data.charge.failure_code)).toEqual(['processing_error']);
  });

  it('makes one statement with the merchant as the mover read it, and records what the move under the lock records', async () => {
    const asRead = await chargeIn('created', 'deposit');
    const locked = await chargeIn('created', 'deposit');
    const merchant = (await findMerchantWithVersion(service.deps.db, shop.merchant.id))!;
    const fast = await move({ chargeId: asRead.charge.id, from: 'created', to: 'failed', changes: { failure_code: 'card_declined', failure_message: 'Declined.' }, known: { ...known(asRead), merchant } });
    const slow = await move({ chargeId: locked.charge.id, from: 'created', to: 'failed', changes: { failure_code: 'card_declined', failure_message: 'Declined.' }, known: { customer: locked.customer, checkout: locked.checkout } });
    expect(fast.queries.map((q) => q.sql.trim().split(/\s/)[0])).toEqual(['WITH']);
    expect([fast.result.moved, fast.result.charge.status, fast.result.recorded!.merchant]).toEqual([true, 'failed', merchant.merchant]);
    expect([slow.result.moved, slow.queries.length]).toEqual([true, 6]);
    expect((await bodies(asRead.checkout.id)).map(withoutIds)).toEqual((await bodies(locked.checkout.id)).map(withoutIds));
  });

  it('records by the settings as they are now when the merchant row changed since the mover read it', async () => {
    const placed = await chargeIn('created', 'deposit');
    const merchant = (await findMerchantWithVersion(service.deps.db, shop.merchant.id))!;
    const { settings } = await service.deps.db('merchants').where({ id: shop.merchant.id }).first();
    await service.deps.db('merchants').where({ id: shop.merchant.id }).update({ settings: JSON.stringify({ ...settings, webhook_url: null }) });
    try {
      const { result, queries } = await move({ chargeId: placed.charge.id, from: 'created', to: 'succeeded', changes: {}, known: { ...known(placed), merchant } });
      // Nothing written by the statement made from the old row: the move under the lock read the merchant again.
      expect(queries.map((q) => q.sql.trim().split(/\s/)[0]!.toUpperCase())).toEqual(['WITH', 'BEGIN;', 'SELECT', 'UPDATE', 'UPDATE', 'SELECT', 'INSERT', 'COMMIT;']);
      expect([result.moved, result.eventIds.length, result.recorded!.merchant.settings.webhook_url]).toEqual([true, 1, null]);
      const events = await service.deps.db('events').where({ checkout_id: placed.checkout.id });
      expect(events.map((event) => [event.type, event.enabled, event.delivery_status])).toEqual([['checkout.succeeded', true, 'no_webhook_url']]);
    } finally {
      await service.deps.db('merchants').where({ id: shop.merchant.id }).update({ settings: JSON.stringify(settings) });
    }
  });

  it("records the merchant's settings as they are when the move is made, not as the mover read them", async () => {
    const placed = await chargeIn('created', 'deposit');
    const { settings } = await service.deps.db('merchants').where({ id: shop.merchant.id }).first();
    await service.deps.db('merchants').where({ id: shop.merchant.id }).update({ settings: JSON.stringify({ ...settings, webhook_url: null }) });
    try {
      const { result } = await move({ chargeId: placed.charge.id, from: 'created', to: 'succeeded', changes: {}, known: known(placed) });
      expect([result.moved, result.eventIds.length]).toEqual([true, 1]);
      const events = await service.deps.db('events').where({ checkout_id: placed.checkout.id });
      expect(events.map((event) => [event.type, event.enabled, event.delivery_status])).toEqual([['checkout.succeeded', true, 'no_webhook_url']]);
    } finally {
      await service.deps.db('merchants').where({ id: shop.merchant.id }).update({ settings: JSON.stringify(settings) });
    }
  });
});
