import type { ActivityDeps } from './deps';
import { chargeEventData, holdDestination } from '../src/domain/event-catalog';
import { recordEvent } from '../src/events/record';
import { setDeliveryStatus } from '../src/storage/events';
import { findChargeById } from '../src/storage/charges';
import { attemptDelivery } from '../src/events/deliver';
import { loadChargeContext } from '../src/charges/load';
import { findPaymentMethod } from '../src/storage/payment-methods';

export function createHoldActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    /**
     * The hold handshake: checkout.hold is recorded and sent synchronously, once (this activity
     * is never retried), before the charge moves. Only a 2xx answer within 10 s accepts it; any
     * other answer, a timeout or no webhook_url means the customer lacks the funds.
     */
    async placeHold(input: { chargeId: string }): Promise<{ accepted: boolean; eventId: string }> {
      const charge = (await findChargeById(db, input.chargeId))!;
      const { checkout, customer, merchant } = await loadChargeContext(db, charge);
      // The event describes the move it asks for: created -> held.
      const base = chargeEventData({ checkout, customer, charge: { ...charge, status: 'held' }, fromStatus: 'created' });
      // The destination rides in the hold so the merchant can decide where the money may go.
      const destination = holdDestination((await findPaymentMethod(db, charge.merchant_id, charge.payment_method_id))!);
      const data = { ...base, charge: { ...base.charge, payment_method: destination } };
      const event = await recordEvent(db, merchant, 'checkout.hold', data, { checkoutId: charge.checkout_id, chargeId: charge.id, customerId: charge.customer_id }, 'hold');
      const result = await attemptDelivery(deps, event, merchant, 1);
      await setDeliveryStatus(db, event.id, !result ? 'no_webhook_url' : result.ok ? 'delivered' : 'failed');
      return { accepted: result?.ok ?? false, eventId: event.id };
    },
  };
}
