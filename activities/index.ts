import type { ActivityDeps } from './deps';
import { createHealthActivities } from './health';

/** Every activity the worker registers, built from injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps } from './deps';
