import { AsyncLocalStorage } from 'node:async_hooks';
import { ServiceUnavailableError } from '../http/errors';

/**
 * How long a request may take to hand its work to Temporal (an attempt, a review decision, a
 * refund, a checkout's start), counted end to end through the Temporal client's own gRPC retries
 * and ours: while Temporal or the worker is away, the request is answered 503 within it, never
 * held until they return. Work handed over carries the same instant (`acceptBy`), and a workflow
 * refuses work that reaches it later, so an answered 503 is never applied behind the caller's back.
 */
export const TEMPORAL_REACH_MS = 6_000;

/**
 * How long a request waits for the outcome of work Temporal accepted: longer than the reach, since
 * a withdrawal's hold waits up to 10 s for the merchant's answer and a worker that crashed mid-charge
 * is replaced and finishes the charge (its workflow task times out first). Past it the request is
 * answered 503; the work goes on, and the same request sent again (same Idempotency-Key) answers
 * its outcome.
 */
export const TEMPORAL_OUTCOME_MS = 60_000;

/** A Temporal client (or its workflow client): what sets the gRPC deadline of the calls made inside `fn`. */
export interface Reachable {
  withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R>;
}

const reach = new AsyncLocalStorage<{ until: number }>();

/** How long the question of whether the Temporal server answers at all may take. */
export const TEMPORAL_PROBE_MS = 1_000;

/** Whether the Temporal server answers at all within TEMPORAL_PROBE_MS (its system info, the cheapest call). */
export function temporalAnswers(client: Reachable & { workflowService: { getSystemInfo(request: object): Promise<unknown> } }): Promise<boolean> {
  return client.withDeadline(Date.now() + TEMPORAL_PROBE_MS, () => client.workflowService.getSystemInfo({})).then(() => true, () => false);
}

/** Runs `fn` with every Temporal call in it ending by `until` (epoch ms): the client's gRPC deadline, and ours for retries. */
export function withinReach<T>(client: Reachable, until: number, fn: () => Promise<T>): Promise<T> {
  return reach.run({ until }, () => client.withDeadline(until, fn));
}

/** Waits for the outcome of accepted work (`fn`) for at most TEMPORAL_OUTCOME_MS. */
export function awaitingOutcome<T>(client: Reachable, fn: () => Promise<T>): Promise<T> {
  return withinReach(client, Date.now() + TEMPORAL_OUTCOME_MS, fn);
}

/** The instant a request's work must reach its workflow by: the reach of the request under way, or one from now. */
export function reachUntil(): number {
  return reach.getStore()?.until ?? Date.now() + TEMPORAL_REACH_MS;
}

/** Whether a pause of `ms` still leaves time in the current reach (none set: always). */
export function timeLeftFor(ms: number): boolean {
  const store = reach.getStore();
  return !store || Date.now() + ms < store.until;
}

/** The 503 of work that could not reach Temporal in time: nothing was done, and the same request sent again is safe. */
export function unreachable(): ServiceUnavailableError {
  return new ServiceUnavailableError('The payment service is briefly unavailable.', 'Nothing was lost: send the same request again after Retry-After seconds.', 1);
}
