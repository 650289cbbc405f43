/**
 * The smallest workflow a cache can hold: it stays open and answers an update, nothing else.
 * bench/cache-scan.ts holds thousands of them to measure what the cache's size costs Temporal's core.
 */
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const touchUpdate = defineUpdate<number>('touch');

export async function cachedWaiter(): Promise<void> {
  let touches = 0;
  setHandler(touchUpdate, () => ++touches);
  await condition(() => false); // open until the benchmark's server goes away
}
