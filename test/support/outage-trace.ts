import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';

/**
 * What the Temporal outage test under load (test/support/temporal-outage-load.ts) can leave behind
 * for a person finding out where the time after the server's return went, when OUTAGE_TRACE_DIR
 * names a directory: every request around the outage (sent and answered, relative to the return),
 * every /readyz answer with its checks, the worker's own log (the SDK's poll retries are in it),
 * and the history of each attempt's checkout workflow sent near the kill or after the return
 * (when each workflow and activity task was scheduled, on which queue, started, completed or
 * timed out). Off unless asked for: it reads a hundred histories.
 */
export const OUTAGE_TRACE_DIR = process.env.OUTAGE_TRACE_DIR;

export interface TracedRequest {
  what: string;
  sentAt: number;
  ms: number;
  status: number | string;
  text: string;
}

export interface OutageTrace {
  /** Prefixes the files: one scenario's. */
  name: string;
  killedAt: number;
  restartedAt: number;
  requests: TracedRequest[];
  readyz: Array<{ at: number; status: number; checks?: unknown }>;
  workerLog: string;
  /** Attempts whose checkout workflow's history is written. */
  attempts: Array<{ request: TracedRequest; workflowId: string; withdrawal: boolean }>;
}

const since = (at: number, restartedAt: number) => String(at - restartedAt);

/** The event's time in epoch ms. */
const eventTime = (e: proto.api.history.v1.IHistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);

/** One line per event: when (ms from the return), its type, and what says where it waited (the queue, the timeout, the activity). */
function eventLine(e: proto.api.history.v1.IHistoryEvent, restartedAt: number): string {
  const type = proto.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType);
  const detail =
    e.workflowTaskScheduledEventAttributes?.taskQueue?.kind === proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY
      ? 'sticky queue'
      : e.workflowTaskTimedOutEventAttributes
        ? proto.api.enums.v1.TimeoutType[e.workflowTaskTimedOutEventAttributes.timeoutType ?? 0]
        : e.activityTaskTimedOutEventAttributes
          ? 'activity timed out'
          : (e.activityTaskScheduledEventAttributes?.activityType?.name ?? '');
  return `  ${since(eventTime(e), restartedAt)}\t${type.replace(/^EVENT_TYPE_/, '')}\t${detail}`;
}

export async function writeOutageTrace(dir: string, client: Client, trace: OutageTrace): Promise<void> {
  const file = (suffix: string) => path.join(dir, `${trace.name}-${suffix}`);
  const { restartedAt } = trace;
  const requests = [...trace.requests].sort((x, y) => x.sentAt - y.sentAt);
  writeFileSync(
    file('requests.txt'),
    [`# ms from the return (${new Date(restartedAt).toISOString()}): sent, took, answer, request; killed at ${since(trace.killedAt, restartedAt)}`, ...requests.map((a) => `${since(a.sentAt, restartedAt)}\t+${a.ms}\t${a.status}\t${a.what}\t${a.status === 201 ? '' : a.text.slice(0, 200)}`)].join('\n'),
  );
  writeFileSync(file('readyz.txt'), trace.readyz.map((p) => `${since(p.at, restartedAt)}\t${p.status}\t${JSON.stringify(p.checks)}`).join('\n'));
  writeFileSync(file('worker.log'), trace.workerLog);
  const lines: string[] = [];
  for (const { request, workflowId, withdrawal } of trace.attempts) {
    lines.push(`== ${request.what}${withdrawal ? ' (withdrawal)' : ''}: sent ${since(request.sentAt, restartedAt)}, answered ${request.status} in ${request.ms} ms`);
    try {
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      for (const e of history.events ?? []) lines.push(eventLine(e, restartedAt));
    } catch (error) {
      lines.push(`  no history: ${String(error)}`);
    }
  }
  writeFileSync(file('histories.txt'), lines.join('\n'));
}
