import autocannon from 'autocannon';
import type { BenchEnvironment } from './environment';
import type { Measurement } from './scenario';

export interface LoadOptions {
  scenario: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** Path (and query) of the first request; setupRequest may change it per request. */
  path: string;
  /** Bearer credential sent with every request. */
  token?: string;
  /** Called before every request; returns the body and/or path of that request. */
  next?: () => { body?: unknown; path?: string };
  note?: string;
}

/**
 * Drives the real HTTP server on 127.0.0.1 with autocannon for `duration` seconds (bounded) and
 * returns one Measurement. Pipelining is 1, as real clients do.
 */
export async function measureLoad(
  env: BenchEnvironment,
  options: LoadOptions,
  connections: number,
  duration = env.settings.duration,
): Promise<Measurement> {
  const url = new URL(env.baseUrl);
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to send load to ${url.hostname}: loopback only`);
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.method !== 'GET') headers['content-type'] = 'application/json';
  const next = options.next;

  const result = await autocannon({
    url: env.baseUrl,
    connections,
    duration,
    pipelining: 1,
    timeout: 10,
    requests: [
      {
        method: options.method,
        path: options.path,
        headers,
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
  });

  return {
    scenario: options.scenario,
    connections,
    // autocannon stops at the first 1 s sample after `duration`, so the window is duration..duration+1 s.
    durationSeconds: result.duration,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99 },
    errors: result.errors,
    non2xx: result.non2xx,
    ...(options.note ? { note: options.note } : {}),
  };
}

/** Unreported load so the JIT, the connection pools and PostgreSQL's caches are warm. */
export async function warmUp(env: BenchEnvironment, options: LoadOptions): Promise<void> {
  if (env.settings.warmup <= 0) return;
  const connections = Math.min(...env.settings.connections);
  await measureLoad(env, options, connections, env.settings.warmup);
}

/** Runs the scenario at every configured connection count, after one warm-up. */
export async function measureAtEachConnectionCount(env: BenchEnvironment, options: LoadOptions): Promise<Measurement[]> {
  await warmUp(env, options);
  const rows: Measurement[] = [];
  for (const connections of env.settings.connections) rows.push(await measureLoad(env, options, connections));
  return rows;
}
