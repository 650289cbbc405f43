/**
 * Runs `tick` every `intervalMs` until stopped. A tick still running when the next is due is not
 * queued behind it (the next one finds its leftovers), so a slow database never piles up sweeps.
 * The returned stop waits for a running tick to end.
 */
export function everyWithoutOverlap(intervalMs: number, tick: () => Promise<void>): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = tick().finally(() => {
      running = null;
    });
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
