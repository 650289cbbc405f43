// @payments-service/sdk: the typed merchant API client and webhook verification.
export { createPaymentsClient, type PaymentsClient, type PaymentsClientOptions } from './client';
export { constructEvent, generateTestHeaders, webhooks, WebhookPayloadError, type ConstructEventOptions } from './webhooks';
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADERS,
  WebhookError,
  WebhookSignatureError,
  type WebhookHeaders,
  type WebhookSignatureFailure,
} from './signature';
export type { WebhookEvent, WebhookEventType } from './events';
export type { components, operations, paths, webhooks as WebhookOperations } from './generated/api';

import type { components } from './generated/api';
/** The contract's resources as the API answers them. */
export type Customer = components['schemas']['Customer'];
export type Checkout = components['schemas']['Checkout'];
export type Charge = components['schemas']['Charge'];
