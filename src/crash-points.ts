/**
 * Steps of a payment attempt at which a crash test makes the worker die (PAYMENTS_TEST_CRASH_AT):
 * before the charge's INSERT, after it, after the processor's answer, after the move that records
 * it, and once the attempt's activity has returned, before its workflow task completes.
 */
export const CRASH_POINTS = ['before_charge_insert', 'after_charge_insert', 'after_processor_call', 'after_charge_move', 'before_task_completes'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

/**
 * Tests only: kills this process with SIGKILL, as a crash would, when the configuration names this
 * step. Inert unless PAYMENTS_TEST_CRASH_AT is set, which loadConfig refuses with NODE_ENV=production.
 */
export function crashIfAt(config: { testCrashAt: CrashPoint | null }, point: CrashPoint): void {
  if (config.testCrashAt === point) process.kill(process.pid, 'SIGKILL');
}
