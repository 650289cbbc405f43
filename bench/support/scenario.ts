import type { BenchEnvironment } from './environment';
import type { CpuGroup } from './proc-stat';

/**
 * One row of the results table. Load scenarios fill it from autocannon; scenarios that measure
 * something else (e.g. webhook end-to-end latency) fill the same columns from their own samples
 * and say what a "request" is in `note`.
 */
export interface Measurement {
  scenario: string;
  /** Concurrent connections (or in-flight operations) during the run. */
  connections: number;
  /** Length of the measured window (s). */
  durationSeconds: number;
  /** Completed requests (operations) during the run. */
  requests: number;
  /** Mean requests (operations) per second. */
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number };
  /** Socket errors and timeouts. */
  errors: number;
  /** Responses outside 2xx (or failed operations). */
  non2xx: number;
  note?: string;
  /** CPU seconds by process over the measured runs (rows measured through alternateWithFloor). */
  cpuSeconds?: Record<CpuGroup, number>;
  /** The floor measured beside it in the same run (alternating rounds), when the scenario has one. */
  floor?: { requestsPerSecond: number; latencyMs: { p50: number; p90: number; p99: number }; requests: number; failures: number; cpuSeconds?: Record<CpuGroup, number> };
}

/**
 * A benchmark scenario: one file in bench/scenarios/ whose default export is a Scenario.
 * `setup` prepares data (seeding, merchants) outside any measurement and returns the state `run`
 * needs; `run` measures and returns one Measurement per configuration (usually per connection count).
 * Every run must be bounded (by env.settings.duration, or a fixed number of operations).
 */
export interface Scenario<State = unknown> {
  /** Kebab-case, as selected with BENCH_SCENARIOS (matches the file name). */
  name: string;
  /** One line: what is measured, for the report. */
  description: string;
  /**
   * Leaves Temporal workflows running (open checkouts, deliveries). Such scenarios run after the
   * others by default, so their workers' backlog never competes with a pure HTTP scenario.
   */
  startsWorkflows?: boolean;
  setup(env: BenchEnvironment): Promise<State>;
  run(env: BenchEnvironment, state: State): Promise<Measurement[]>;
}

/** Typed helper for scenario files: `export default defineScenario({ ... })`. */
export function defineScenario<State>(scenario: Scenario<State>): Scenario<State> {
  return scenario;
}

export function isScenario(value: unknown): value is Scenario {
  const s = value as Partial<Scenario> | undefined;
  return !!s && typeof s.name === 'string' && typeof s.setup === 'function' && typeof s.run === 'function';
}
