// Which processor serves a merchant's charges: a sandbox by name, or a real connector with the
// merchant's own credentials. Adding a connector adds its folder and its case here.
import type { CardProcessorName } from '../domain/settings';
import type { Db } from '../storage/db';
import { getProcessor, isProcessorName } from './sandbox';
import { createStripeProcessor, type StripeApiAddress } from './stripe';
import type { Processor } from './types';

export interface ConnectorCredentials {
  /** The merchant's Stripe secret key, opened from its seal (null when none is set). */
  stripeSecretKey: () => string | null;
}

export interface ConnectorOptions {
  /** Where sandbox calls are recorded (see getProcessor). */
  db?: Db;
  /** STRIPE_API_BASE_URL's address; Stripe's API when null. */
  stripeApi?: StripeApiAddress | null;
}

/** A connector that cannot serve the call: the merchant's credentials are missing. */
export class ConnectorNotConfigured extends Error {
  constructor(processor: string, missing: string) {
    super(`The ${processor} processor has no ${missing} for this merchant.`);
    this.name = 'ConnectorNotConfigured';
  }
}

export function connectorFor(name: CardProcessorName | string, credentials: ConnectorCredentials, options: ConnectorOptions = {}): Processor {
  if (isProcessorName(name)) return getProcessor(name, options.db);
  if (name === 'stripe') {
    const secretKey = credentials.stripeSecretKey();
    if (!secretKey) throw new ConnectorNotConfigured('stripe', 'Stripe secret key');
    return createStripeProcessor({ secretKey, ...(options.stripeApi ? { api: options.stripeApi } : {}) });
  }
  throw new TypeError(`Unknown card processor: ${name}`);
}
