import type { ActivityDeps } from './deps';
import { chargeEventData } from '../src/domain/event-catalog';
import { recordEvent } from '../src/events/record';
import { insertAttempt, setDeliveryStatus } from '../src/storage/events';
import type { ChargeRow } from '../src/storage/charges';
import type { CheckoutRow } from '../src/storage/checkouts';
import type { CustomerRow } from '../src/storage/customers';
import type { MerchantRow } from '../src/storage/merchants';
import { sendSignedWebhook } from '../src/webhooks/send';

export function createHoldActivities(deps: ActivityDeps) {
  const { db, sealer } = deps;
  return {
    /**
     * The hold handshake: checkout.hold is recorded and sent synchronously, once (this activity
     * is never retried), before the charge moves. Only a 2xx answer within 10 s accepts it; any
     * other answer, a timeout or no webhook_url means the customer lacks the funds.
     */
    async placeHold(input: { chargeId: string }): Promise<{ accepted: boolean; eventId: string }> {
      const charge = (await db<ChargeRow>('charges').where({ id: input.chargeId }).first())!;
      const [checkout, customer, merchant] = await Promise.all([
        db<CheckoutRow>('checkouts').where({ id: charge.checkout_id }).first(),
        db<CustomerRow>('customers').where({ id: charge.customer_id }).first(),
        db<MerchantRow>('merchants').where({ id: charge.merchant_id }).first(),
      ]);
      // The event describes the move it asks for: created -> held.
      const data = chargeEventData({ checkout: checkout!, customer: customer!, charge: { ...charge, status: 'held' }, fromStatus: 'created' });
      const event = await recordEvent(db, merchant!, 'checkout.hold', data, { checkoutId: charge.checkout_id, chargeId: charge.id, customerId: charge.customer_id }, 'hold');
      const url = merchant!.settings.webhook_url;
      if (!url) {
        await setDeliveryStatus(db, event.id, 'no_webhook_url');
        return { accepted: false, eventId: event.id };
      }
      const result = await sendSignedWebhook({ url, body: event.body, secret: sealer.open(merchant!.webhook_signing_secret_sealed) });
      await insertAttempt(db, {
        event_id: event.id,
        attempt: 1,
        url,
        started_at: result.startedAt,
        duration_ms: result.durationMs,
        http_status: result.httpStatus,
        error: result.error,
      });
      await setDeliveryStatus(db, event.id, result.ok ? 'delivered' : 'failed');
      return { accepted: result.ok, eventId: event.id };
    },
  };
}
