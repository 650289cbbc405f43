import { z } from 'zod';
import { operation, TAGS } from '../http/openapi-operation';

operation({
  method: 'post',
  path: '/processors/stripe/webhooks/{merchant_id}',
  id: 'receiveStripeEvent',
  tag: TAGS.processorEvents,
  summary: "Stripe's events for the merchant's Stripe account",
  description:
    "The merchant's Stripe webhook endpoint. The Stripe-Signature header is verified with the merchant's endpoint secret (settings stripe.webhook_secret); " +
    'each event is handled once (by its id) and the object it names is read again from Stripe. payment_intent.succeeded and payment_intent.payment_failed settle a charge, ' +
    'charge.refunded records a refund (one made in Stripe\'s dashboard too), charge.dispute.created moves the charge to returned. Any other event, or one for a charge ' +
    'that is not the merchant\'s, is acknowledged and moves nothing.',
  params: z.object({ merchant_id: z.string().openapi({ description: 'The merchant whose Stripe account sends the event.', example: 'mer_123' }) }),
  body: z.record(z.string(), z.unknown()).openapi({ description: "Stripe's Event object, as Stripe sent it." }),
  responses: { 200: ['Acknowledged', z.object({ received: z.literal(true).openapi({ description: 'Always true: Stripe stops delivering the event.', example: true }), outcome: z.string().openapi({ description: 'What the event did: moved: <status>, duplicate, or ignored: <why>.', example: 'moved: refunded' }) })] },
  errors: { 422: 'The signature does not verify, or the merchant has no Stripe webhook endpoint secret' },
});
