// The webhook event catalog as types, taken from the webhooks section of the generated OpenAPI
// types: one envelope per event type, its `data` as the contract's Events section shapes it.
import type { webhooks } from './generated/api';

/** Every event type the service sends (the always-on four, the optional ones, and the subscription extension). */
export type WebhookEventType = keyof webhooks;

type Envelope<T extends WebhookEventType> = NonNullable<webhooks[T]['post']>['requestBody']['content']['application/json'];

/**
 * One delivery's body: `event_id` (stable across every attempt of the event), `data` and `type`.
 * A union discriminated by `type`, so `if (event.type === 'checkout.hold')` narrows `data`.
 */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = { [K in T]: Envelope<K> }[T];
