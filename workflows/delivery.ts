import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliveryWorkflowInput } from './contract';
import { DATABASE, delivery } from './retry-policies';

const db = proxyActivities<Activities>(DATABASE);

/**
 * Delivers one recorded event (workflow id = event id): up to five attempts of ten seconds
 * each with doubling backoff, each signed afresh; the outcome is written to the event log.
 * Usually started only after the committing process's own first attempt failed (`attemptsMade`).
 * A resend or a replay runs it again as a new delivery series (`series`, workflow id
 * `<event id>:<series>`), with five attempts of its own.
 */
export async function deliverEventWorkflow(input: DeliveryWorkflowInput): Promise<'delivered' | 'failed' | 'no_webhook_url'> {
  const attemptsMade = input.attemptsMade ?? 0;
  // Passed on only for a resend or a replay, so the event's own series schedules what it always did.
  const series = input.series !== undefined ? { series: input.series } : {};
  const { deliverEvent } = proxyActivities<Activities>(delivery(input.retryInitialMs, attemptsMade));
  // One activity on the common path: the delivering attempt records the outcome itself.
  try {
    return await deliverEvent({ eventId: input.eventId, recordOutcome: true, ...(attemptsMade > 0 ? { attemptsMade } : {}), ...series });
  } catch {
    await db.finishDelivery({ eventId: input.eventId, status: 'failed' }); // all five attempts failed; the event log keeps every attempt
    return 'failed';
  }
}
