import { runPrepared, type Db } from './db';

/** One charge or payout the sandbox processor was sent, as it answered it. */
export interface SandboxProcessorCallRow<Outcome> {
  processor: string;
  idempotency_key: string;
  operation: 'charge' | 'payout';
  outcome: Outcome;
  created_at: Date;
}

const RECORD_SQL = `INSERT INTO sandbox_processor_calls (processor, idempotency_key, operation, outcome) VALUES ($1, $2, $3, $4)
  ON CONFLICT (processor, idempotency_key) DO NOTHING RETURNING processor`;

/**
 * Records a call's outcome under its idempotency key, once: a call repeated with the same key gets
 * the outcome first recorded, as a processor that de-duplicates by key answers it. Committed before
 * the processor answers, so the record outlives a caller that dies while the answer is on its way.
 */
export async function recordSandboxCall<Outcome>(db: Db, processor: string, idempotencyKey: string, operation: 'charge' | 'payout', outcome: Outcome): Promise<Outcome> {
  const [inserted] = await runPrepared(db, RECORD_SQL, [processor, idempotencyKey, operation, JSON.stringify(outcome)]);
  if (inserted) return outcome;
  return (await findSandboxCall<Outcome>(db, processor, idempotencyKey))!.outcome;
}

export async function findSandboxCall<Outcome>(db: Db, processor: string, idempotencyKey: string): Promise<SandboxProcessorCallRow<Outcome> | undefined> {
  return db<SandboxProcessorCallRow<Outcome>>('sandbox_processor_calls').where({ processor, idempotency_key: idempotencyKey }).first();
}
