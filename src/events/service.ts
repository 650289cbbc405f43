import type { Db } from '../storage/db';
import { listAttempts, listDeliverySeries, type EventRow } from '../storage/events';
import { presentEvent } from './present';

/** Events as the event logs (admin and merchant) show them: each attempt and each delivery series, read once for the page. */
export async function presentEventLog(db: Db, events: EventRow[]) {
  const ids = events.map((e) => e.id);
  const [attempts, series] = await Promise.all([listAttempts(db, ids), listDeliverySeries(db, ids)]);
  return events.map((e) => presentEvent(e, attempts, series));
}
