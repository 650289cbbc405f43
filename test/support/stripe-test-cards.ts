// Stripe's documented test cards, answered over stripe-mock's fixtures: stripe-mock never declines,
// so a whole flow (the property suite with Stripe selected) gets each card's documented outcome
// from here. The sandbox's test cards are Stripe's numbers, so a sequence means the same on both.
import { approvedCharge, cardDeclined, type StripeAnswer, type StripeScript } from './stripe-scripted';

type Fixture = Record<string, unknown>;

/** By card number: a decline (decline code and Stripe's message) or 3D Secure; any other card succeeds. */
const DECLINES: Record<string, [string, string]> = {
  '4000000000000002': ['generic_decline', 'Your card was declined.'],
  '4000000000009995': ['insufficient_funds', 'Your card has insufficient funds.'],
  '4000000000000069': ['expired_card', 'Your card has expired.'],
};
const THREEDS = '4000000000003220';
/** Our addition, as in the sandbox: the charge succeeds and its refund is refused. */
const REFUND_REFUSED = '4000000000005126';

export function stripeTestCardScript(): StripeScript {
  const cardOf = new Map<string, string>(); // PaymentMethod, PaymentIntent or Charge id -> card number
  let sequence = 0;

  function succeeded(intent: Fixture, number: string, threeds: boolean): Fixture {
    const chargeId = `ch_3TestCard${++sequence}`;
    cardOf.set(chargeId, number);
    const charge = { ...approvedCharge(intent.latest_charge, threeds ? { version: '2.2.0', result: 'authenticated', eci: '05' } : undefined), id: chargeId, payment_intent: intent.id };
    return { ...intent, status: 'succeeded', latest_charge: charge };
  }

  function confirm(intent: Fixture, body: URLSearchParams): StripeAnswer {
    const number = cardOf.get(body.get('payment_method') ?? '') ?? '';
    const id = `pi_3TestCard${++sequence}`;
    cardOf.set(id, number);
    const created = { ...intent, id, metadata: { charge_id: body.get('metadata[charge_id]') ?? '' } };
    const decline = DECLINES[number];
    if (decline) return cardDeclined(created, decline[0], decline[1]);
    // 3D Secure: the customer's challenge is pending; the PaymentIntent reads succeeded once done.
    if (number === THREEDS) return { status: 200, body: { ...created, status: 'requires_action', latest_charge: null, next_action: { type: 'use_stripe_sdk', use_stripe_sdk: {} } } };
    return { status: 200, body: succeeded(created, number, false) };
  }

  return {
    'POST /v1/payment_methods': (method, sent) => {
      cardOf.set(String(method.id), sent.body.get('card[number]') ?? '');
      return { status: 200, body: method };
    },
    'POST /v1/payment_intents': (intent, sent) => confirm(intent, sent.body),
    // Read again (a settlement): a 3D Secure charge's challenge was completed.
    'GET /v1/payment_intents/': (intent, sent) => {
      const id = sent.path.split('?')[0]!.split('/').pop()!;
      if (id === 'search') return { status: 200, body: intent }; // stripe-mock's list names no charge of ours
      return { status: 200, body: succeeded({ ...intent, id }, cardOf.get(id) ?? '', true) };
    },
    'POST /v1/refunds': (refund, sent) => {
      const number = cardOf.get(sent.body.get('charge') ?? sent.body.get('payment_intent') ?? '');
      if (number === REFUND_REFUSED) return { status: 400, body: { error: { type: 'invalid_request_error', code: 'amount_too_large', message: 'Refund amount exceeds transaction balance' } } };
      return { status: 200, body: { ...refund, status: 'succeeded' } };
    },
  };
}
