import { condition, patched, sleep } from '@temporalio/workflow';

/**
 * Waits out `ms` for a charge, or less once the charge is in `moved` (a signal said it was moved
 * outside the workflow, by the sandbox simulator): the caller then reads where the charge is. Behind
 * `patched(patchId)`: histories recorded before that patch slept the whole time, and replay so.
 */
export async function waitUnlessMoved(patchId: string, moved: ReadonlySet<string>, chargeId: string, ms: number): Promise<void> {
  if (!patched(patchId)) return sleep(ms);
  if (ms > 0) await condition(() => moved.has(chargeId), ms);
}
