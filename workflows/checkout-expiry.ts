import { condition, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { checkoutEndedSignal, type CheckoutExpiryWorkflowInput } from './contract';
import { DATABASE_LOCAL } from './retry-policies';

const dbLocal = proxyLocalActivities<Activities>(DATABASE_LOCAL);

/**
 * A checkout's durable timer while nobody has tried it (workflow id `<checkout id>:expiry`).
 * Started with the checkout, with a start delay that ends at its deadline, at background
 * priority: Temporal keeps the timer, and the worker sees the workflow once, at the deadline, for
 * one workflow task that expires the checkout in a local activity. An attempt never waits behind
 * it: the first attempt starts the checkout's own workflow (interactive priority), which takes
 * over the checkout and its expiry, and signals this one (checkoutEndedSignal) when it has ended
 * the checkout, so it ends then rather than at the deadline. Should that signal be lost, this one
 * finds at its deadline a checkout a charge holds, or one no longer open, and ends without
 * touching it.
 */
export async function checkoutExpiryWorkflow(input: CheckoutExpiryWorkflowInput): Promise<{ expired: boolean }> {
  let ended = false;
  setHandler(checkoutEndedSignal, () => void (ended = true));
  // Makes the same commands as a plain sleep when no signal comes (one timer, then the expiry).
  const early = Date.parse(input.expiresAt) - Date.now();
  if (early > 0) await condition(() => ended, early);
  if (ended) return { expired: false };
  return { expired: await dbLocal.expireDueCheckout({ checkoutId: input.checkoutId }) };
}
