import { ApplicationFailure } from '@temporalio/common';

/**
 * The business failure inside a Temporal error. A refusal raised in an activity reaches the
 * workflow wrapped in an activity failure, and the client wrapped once more (update or workflow
 * failure), so the chain of causes is walked to the first ApplicationFailure with a type (one
 * of FAILURE_TYPES). Free of Node built-ins: used by workflows and by the API alike.
 */
export function applicationFailureOf(error: unknown): ApplicationFailure | undefined {
  let cause: unknown = error;
  for (let depth = 0; cause && depth < 10; depth += 1) {
    if (cause instanceof ApplicationFailure && cause.type) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

export function failureType(error: unknown): string | undefined {
  return applicationFailureOf(error)?.type ?? undefined;
}
