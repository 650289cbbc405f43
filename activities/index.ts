import type { ActivityDeps } from './deps';
import { createHealthActivities } from './health';
import { createChargeActivities } from './charges';
import { createCheckoutActivities } from './checkouts';
import { createHoldActivities } from './holds';
import { createDeliveryActivities } from './delivery';
import { createRefundActivities } from './refunds';
import { createSubscriptionActivities } from './subscriptions';

/** Every activity the worker registers, built from injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
    ...createChargeActivities(deps),
    ...createCheckoutActivities(deps),
    ...createHoldActivities(deps),
    ...createDeliveryActivities(deps),
    ...createRefundActivities(deps),
    ...createSubscriptionActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps } from './deps';
