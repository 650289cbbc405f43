import type { Config } from '../config';
import type { Sealer } from '../crypto';
import { connectorFor, type Processor } from '../processors';
import type { Db } from '../storage/db';
import type { MerchantRow } from '../storage/merchants';

export interface MerchantProcessorDeps {
  sealer: Sealer;
  config: Pick<Config, 'stripeApi'>;
  /** Where sandbox calls are recorded (activities pass it; tokenizing needs none). */
  db?: Db;
}

/**
 * The processor that serves the merchant: its card_processor setting by default, or `name` (the
 * processor a charge was made with, which keeps its refunds and settlements whatever the setting
 * says now), with the merchant's own credentials, opened only when a connector needs them.
 */
export function merchantProcessor(merchant: Pick<MerchantRow, 'settings' | 'stripe_secret_key_sealed'>, deps: MerchantProcessorDeps, name: string = merchant.settings.card_processor): Processor {
  const sealed = merchant.stripe_secret_key_sealed;
  return connectorFor(name, { stripeSecretKey: () => (sealed ? deps.sealer.open(sealed) : null) }, { db: deps.db, stripeApi: deps.config.stripeApi });
}
