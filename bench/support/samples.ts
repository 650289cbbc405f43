import type { Measurement } from './scenario';

/** Percentile of sorted samples (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A Measurement from latency samples of operations that are not single HTTP requests. */
export function fromSamples(
  scenario: string,
  connections: number,
  durationSeconds: number,
  samples: number[],
  failures: number,
  note: string,
): Measurement {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    scenario,
    connections,
    durationSeconds,
    requests: samples.length,
    requestsPerSecond: round(samples.length / durationSeconds),
    latencyMs: { p50: round(percentile(sorted, 50)), p90: round(percentile(sorted, 90)), p99: round(percentile(sorted, 99)) },
    errors: 0,
    non2xx: failures,
    note,
  };
}

/**
 * Runs `workers` concurrent loops of `operation` until the deadline (bounded by time), or until
 * `done` answers true (checked before each operation), whichever comes first.
 */
export async function runClosedLoop(workers: number, durationMs: number, operation: (worker: number) => Promise<void>, done: () => boolean = () => false): Promise<void> {
  const deadline = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (Date.now() < deadline && !done()) await operation(worker);
    }),
  );
}
