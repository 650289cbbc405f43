import type { ActivityDeps } from './deps';
import { createHealthActivities } from './health';
import { createAttemptActivities } from './attempts';
import { createChargeActivities } from './charges';
import { createCheckoutActivities } from './checkouts';
import { createHoldActivities } from './holds';
import { createReviewActivities } from './reviews';
import { createDeliveryActivities } from './delivery';
import { createRefundActivities } from './refunds';
import { createSubscriptionActivities } from './subscriptions';

/** Every activity the worker registers, built from injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
    ...createAttemptActivities(deps),
    ...createChargeActivities(deps),
    ...createCheckoutActivities(deps),
    ...createReviewActivities(deps),
    ...createHoldActivities(deps),
    ...createDeliveryActivities(deps),
    ...createRefundActivities(deps),
    ...createSubscriptionActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps } from './deps';
