/**
 * Dynamic configuration the service relies on from Temporal's server, for the dev servers the
 * project starts (`npm start`, the tests, the benchmarks). The PostgreSQL-backed server reads the
 * same values from config/temporal/dynamicconfig.yaml, and scripts/start.sh passes them too.
 *
 * Task-queue priority and fairness: without them the server ignores the priority and fairness
 * keys workflows are started with (workflows/contract.ts, PRIORITY_LEVELS) and dispatches each
 * task queue first in, first out.
 */
export const PRIORITY_DYNAMIC_CONFIG = ['matching.useNewMatcher=true', 'matching.enableFairness=true'] as const;

/** PRIORITY_DYNAMIC_CONFIG as dev-server arguments. */
export function priorityDevServerArgs(): string[] {
  return PRIORITY_DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]);
}
