import { condition } from '@temporalio/workflow';

/**
 * Waits out `ms` for a charge, or less once the charge is in `moved` (a signal said it was moved
 * outside the workflow, by the sandbox simulator): the caller then reads where the charge is.
 */
export async function waitUnlessMoved(moved: ReadonlySet<string>, chargeId: string, ms: number): Promise<void> {
  if (ms > 0) await condition(() => moved.has(chargeId), ms);
}
