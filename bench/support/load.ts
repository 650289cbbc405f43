import autocannon from 'autocannon';
import type { BenchEnvironment } from './environment';
import { alternateWithFloor, type Run } from './floors';
import { waitForFirstTasks } from './temporal';
import type { Measurement } from './scenario';

export interface LoadOptions {
  scenario: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** Path (and query) of the first request; setupRequest may change it per request. */
  path: string;
  /** Where the requests go (default: the API under test, env.baseUrl). */
  baseUrl?: string;
  /** Bearer credential sent with every request. */
  token?: string;
  /** Called before every request; returns the body and/or path of that request. */
  next?: () => { body?: unknown; path?: string };
  note?: string;
  /**
   * Each 2xx answer's `id` is a workflow the request started that a worker runs: the run ends
   * only once the last of them have run their first task (waitForFirstTasks), and that wait
   * counts in its window, so req/s is what the service sustains with its workflows' first tasks
   * done, and their CPU falls in this run, not the next.
   */
  startsWorkflows?: boolean;
  /** The id of the workflow a 2xx answer's `id` started, when it is not that id (a checkout's deadline workflow). */
  workflowIdOf?: (id: string) => string;
  /** Beside a floor, run as a steady row: BENCH_STEADY_ROUNDS rounds (alternateWithFloor). */
  steady?: boolean;
  /** Requests a second over all connections (autocannon's overallRate): an open load whose latency is read, not its rate. */
  rate?: number;
}

/** How many of a run's last started workflows waitForFirstTasks looks at. */
const LAST_STARTS = 40;

/**
 * Drives an HTTP server on 127.0.0.1 with autocannon for `seconds` (bounded) and returns every
 * 2xx response's latency, so runs can be merged exactly. Pipelining is 1, as real clients do.
 */
export async function runLoad(env: BenchEnvironment, options: LoadOptions, connections: number, seconds: number): Promise<Run> {
  const baseUrl = options.baseUrl ?? env.baseUrl;
  const url = new URL(baseUrl);
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to send load to ${url.hostname}: loopback only`);
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.method !== 'GET') headers['content-type'] = 'application/json';
  const next = options.next;
  const samples: number[] = [];
  const started: string[] = [];
  const recordStart = (status: number, body: string) => {
    if (status < 200 || status >= 300) return;
    const { id } = JSON.parse(body) as { id: string };
    started.push(options.workflowIdOf ? options.workflowIdOf(id) : id);
    if (started.length > LAST_STARTS) started.shift();
  };

  const autocannonOptions: autocannon.Options = {
    url: baseUrl,
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: 10,
    ...(options.rate ? { overallRate: options.rate } : {}),
    requests: [
      {
        method: options.method,
        path: options.path,
        headers,
        ...(options.startsWorkflows ? { onResponse: recordStart } : {}),
        ...(next
          ? {
              setupRequest: (request: autocannon.Request) => {
                const { body, path } = next();
                if (body !== undefined) request.body = JSON.stringify(body);
                if (path !== undefined) request.path = path;
                return request;
              },
            }
          : {}),
      },
    ],
  };
  let instance!: autocannon.Instance;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(autocannonOptions, (error, result) => (error ? reject(error) : resolve(result)));
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) samples.push(responseTime);
  });
  const result = await finished;
  const drainSeconds = options.startsWorkflows ? await waitForFirstTasks(env.temporal, started) : 0;
  // autocannon stops at the first 1 s sample after `seconds`, so the window is seconds..seconds+1.
  return { samples, seconds: result.duration + drainSeconds, failures: result.non2xx, errors: result.errors, drainSeconds };
}

/** Unreported load so the JIT, the connection pools and PostgreSQL's caches are warm. */
export async function warmUp(env: BenchEnvironment, options: LoadOptions): Promise<void> {
  if (env.settings.warmup <= 0) return;
  await runLoad(env, options, Math.min(...env.settings.connections), env.settings.warmup);
}

/** One row without a floor: `seconds` of load at `connections`. */
export async function measureLoad(env: BenchEnvironment, options: LoadOptions, connections: number): Promise<Measurement> {
  return alternateWithFloor(env, { scenario: options.scenario, connections, note: options.note, service: (seconds) => runLoad(env, options, connections, seconds) });
}

/** Runs the scenario at every configured connection count, after one warm-up. */
export async function measureAtEachConnectionCount(env: BenchEnvironment, options: LoadOptions, floor?: LoadOptions): Promise<Measurement[]> {
  await warmUp(env, options);
  if (floor) await warmUp(env, floor);
  const rows: Measurement[] = [];
  for (const connections of env.settings.connections) {
    rows.push(
      await alternateWithFloor(env, {
        scenario: options.scenario,
        connections,
        note: options.note,
        steady: options.steady,
        service: (seconds) => runLoad(env, options, connections, seconds),
        floor: floor ? (seconds) => runLoad(env, floor, connections, seconds) : undefined,
      }),
    );
  }
  return rows;
}
