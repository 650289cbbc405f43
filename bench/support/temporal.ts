import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../workflows/contract';
import { runClosedLoop } from './samples';
import { priorityDevServerArgs } from '../../src/temporal/server-config';

/** As the worker reads CHECKOUT_WORKFLOW_DELAYED_START (src/config.ts): true unless false or 0. */
export const DELAYED_START = !['false', '0'].includes(process.env.CHECKOUT_WORKFLOW_DELAYED_START ?? 'true');

/**
 * The SQLite pragmas `npm start` gives the file-backed dev server (scripts/start.sh): WAL and
 * synchronous=NORMAL, so a commit no longer waits for an fsync of the database file. Still
 * durable across a process crash; a power loss may lose the last transactions, not corrupt the file.
 */
export const FAST_SQLITE_ARGS = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];

/**
 * Eager activity dispatch, as `npm start` and the cluster turn it on: an activity scheduled by a
 * workflow task comes back in that task's completion to the same worker, skipping a trip through
 * matching (the expiry of a checkout is one such activity). BENCH_EAGER_ACTIVITIES=0 leaves it off.
 */
export const EAGER_ACTIVITY_ARGS = process.env.BENCH_EAGER_ACTIVITIES === '0' ? [] : ['--dynamic-config-value', 'system.enableActivityEagerExecution=true'];

/** Task-queue priority and fairness, as every server the project starts has them; BENCH_PRIORITIES=0 measures without. */
export const PRIORITY_ARGS = process.env.BENCH_PRIORITIES === '0' ? [] : priorityDevServerArgs();

/** More dev-server arguments for an experiment, e.g. `--dynamic-config-value key=value` (BENCH_DEV_SERVER_ARGS, space-separated). */
export const EXPERIMENT_ARGS = (process.env.BENCH_DEV_SERVER_ARGS ?? '').split(/\s+/).filter(Boolean);

/** The Temporal CLI a standalone benchmark runs: TEMPORAL_CLI_PATH (set by bench/run.sh), else the one scripts/lib.sh caches. */
export function temporalCliPath(): string {
  return process.env.TEMPORAL_CLI_PATH ?? path.join(process.env.HOME ?? '', '.cache/payments-service/temporal-1.5.1/temporal');
}

/** Which Temporal a benchmark runs against (BENCH_TEMPORAL). */
export type TemporalKind =
  /** A file-backed dev server started as `npm start` starts it (WAL pragmas): the default. */
  | { kind: 'dev-file' }
  /** The same without the pragmas (SQLite defaults: rollback journal, fsync per commit), for comparison. */
  | { kind: 'dev-file-default' }
  /** An in-memory dev server (`npm test`'s). */
  | { kind: 'dev-memory' }
  /** A server already running at this address (e.g. the PostgreSQL-backed cluster of `npm run test:cluster`). */
  | { kind: 'address'; address: string };

export function temporalKindFromEnv(value = process.env.BENCH_TEMPORAL ?? 'dev-file'): TemporalKind {
  if (value === 'dev-file' || value === 'dev-file-default' || value === 'dev-memory') return { kind: value };
  if (/^[\w.-]+:\d+$/.test(value)) return { kind: 'address', address: value };
  throw new Error(`BENCH_TEMPORAL must be dev-file, dev-file-default, dev-memory or host:port (got ${value})`);
}

export interface StartedTemporal {
  address: string;
  describe: string;
  stop(): Promise<void>;
}

/** Starts (or connects to) the Temporal a benchmark needs; the dev server's file lives in `dataDir`. */
export async function startTemporal(kind: TemporalKind, executable: string, dataDir: string): Promise<StartedTemporal> {
  if (kind.kind === 'address') return { address: kind.address, describe: `Temporal server at ${kind.address} (BENCH_TEMPORAL; with =cluster, on PostgreSQL)`, stop: async () => undefined };
  const dbFilename = kind.kind === 'dev-memory' ? undefined : `${dataDir}/temporal-${randomBytes(4).toString('hex')}.db`;
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: executable },
      ip: '127.0.0.1',
      searchAttributes: SEARCH_ATTRIBUTES,
      log: { format: 'pretty', level: 'error' },
      ...(dbFilename ? { dbFilename } : {}),
      extraArgs: [...(kind.kind === 'dev-file' ? FAST_SQLITE_ARGS : []), ...EAGER_ACTIVITY_ARGS, ...PRIORITY_ARGS, ...EXPERIMENT_ARGS],
    },
  });
  const describe = {
    'dev-file': 'dev server, SQLite file with journal_mode=WAL, synchronous=NORMAL (as `npm start`)',
    'dev-file-default': 'dev server, SQLite file with default pragmas',
    'dev-memory': 'dev server, in-memory SQLite',
  }[kind.kind];
  const withArgs = EXPERIMENT_ARGS.length > 0 ? `${describe}, with ${EXPERIMENT_ARGS.join(' ')}` : describe;
  return { address: env.connection.options.address, describe: withArgs, stop: () => env.teardown() };
}

export async function connectClient(address: string, namespace = 'default'): Promise<Client> {
  return new Client({ connection: await Connection.connect({ address }), namespace });
}

/**
 * Waits (bounded) until the workflows a load round started have each run their first workflow
 * task, so the work a start leaves to the worker (the floor's first task starts a timer) is done
 * inside the round that caused it, not in the next round, which may be the other side's. A workflow
 * started with a start delay (a checkout's, until its first attempt) has no first task to wait for,
 * and a round's starts are all delayed or none (one API, one setting): when the newest is delayed,
 * nothing is waited for and one describe is all the round pays. (Until 26 November every one of
 * the 40 was described in turn, about 0.3 s of RPCs counted in each of the service's 5 s rounds.)
 * `workflowIds` are the round's last starts in start order: a task queue's partitions hand out
 * tasks about first-in first-out, so once these have run, the round's earlier ones have too.
 * Returns the seconds it waited.
 */
export async function waitForFirstTasks(client: Client, workflowIds: string[], timeoutMs = 120_000): Promise<number> {
  const started = performance.now();
  const deadline = Date.now() + timeoutMs;
  const newest = workflowIds.at(-1);
  if (newest !== undefined && (await firstTaskState(client, newest)) === 'delayed') return (performance.now() - started) / 1000;
  for (const workflowId of workflowIds) {
    while ((await firstTaskState(client, workflowId)) === 'pending') {
      if (Date.now() > deadline) throw new Error(`workflow ${workflowId} had not run its first task after ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return (performance.now() - started) / 1000;
}

/** Whether a workflow's first task has run, is still to run, or is held back by a start delay. */
async function firstTaskState(client: Client, workflowId: string): Promise<'ran' | 'pending' | 'delayed'> {
  const description = await client.workflow.getHandle(workflowId).describe();
  if (description.raw.pendingWorkflowTask) return 'pending';
  // Started and its first task scheduled are two events, written together; a task that ran added at least its started and completed.
  if (description.historyLength > 2) return 'ran';
  // Started alone, no task scheduled: a start delay (a checkout's workflow, src/temporal/checkouts.ts) holds its first task back.
  return description.historyLength === 1 ? 'delayed' : 'pending';
}

/** The floor of checkout create: a bare workflow.start of a workflow no worker ever runs. */
export async function bareWorkflowStarts(client: Client, connections: number, durationMs: number): Promise<{ samples: number[]; failures: number }> {
  const taskQueue = `bench-floor-${randomBytes(4).toString('hex')}`;
  const samples: number[] = [];
  let failures = 0;
  await runClosedLoop(connections, durationMs, async () => {
    const started = performance.now();
    try {
      await client.workflow.start('benchFloorNoop', { taskQueue, workflowId: `floor-${randomBytes(8).toString('hex')}`, args: [] });
      samples.push(performance.now() - started);
    } catch {
      failures++;
    }
  });
  return { samples, failures };
}
