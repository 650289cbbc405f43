/**
 * How many expiries the worker under test recorded by its workflows' timers and by its sweep of
 * late timers, from its own metrics (`env.workerMetricsUrl`). Counters the worker has not
 * exported yet read 0.
 */
export async function expiriesRecordedBy(metricsUrl: string): Promise<{ timer: number; sweep: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const count = (by: string) => Number(new RegExp(`^payments_checkouts_expired_total\\{by="${by}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { timer: count('timer'), sweep: count('sweep') };
}
