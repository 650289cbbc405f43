/**
 * Bare `workflow.start` rate of the file-backed dev server with SQLite's default pragmas versus
 * `npm start`'s (journal_mode=WAL, synchronous=NORMAL), in alternating rounds on two servers
 * started side by side (each on a fresh file in a temporary directory).
 *
 *   npx tsx bench/temporal-start-rate.ts          (TEMPORAL_CLI_PATH or the cached CLI)
 *   BENCH_SCRIPT=bench/temporal-start-rate.ts BENCH_TEMPORAL=cluster npm run bench   (the cluster as a third)
 *   START_RATE_SECONDS=10 START_RATE_ROUNDS=3 START_RATE_CONNECTIONS=10
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromSamples } from './support/samples';
import { bareWorkflowStarts, connectClient, startTemporal, temporalKindFromEnv, type StartedTemporal, temporalCliPath } from './support/temporal';

const seconds = Number(process.env.START_RATE_SECONDS ?? 10);
const rounds = Number(process.env.START_RATE_ROUNDS ?? 3);
const connections = Number(process.env.START_RATE_CONNECTIONS ?? 10);
const executable = temporalCliPath();

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payments-start-rate-'));
  const servers: Array<{ name: string; server: StartedTemporal }> = [];
  try {
    for (const kind of ['dev-file-default', 'dev-file'] as const) {
      servers.push({ name: kind, server: await startTemporal({ kind }, executable, dir) });
    }
    // BENCH_TEMPORAL=cluster via bench/run.sh (or host:port): Temporal's server on PostgreSQL too.
    const other = process.env.BENCH_TEMPORAL ? temporalKindFromEnv() : null;
    if (other?.kind === 'address') servers.push({ name: 'cluster', server: await startTemporal(other, executable, dir) });
    const clients = await Promise.all(servers.map((s) => connectClient(s.server.address)));
    const totals = servers.map(() => ({ samples: [] as number[], failures: 0 }));
    for (let round = 0; round < rounds; round++) {
      for (const [i, { name }] of servers.entries()) {
        const run = await bareWorkflowStarts(clients[i]!, connections, seconds * 1000);
        totals[i]!.samples.push(...run.samples);
        totals[i]!.failures += run.failures;
        console.error(`round ${round + 1} ${name}: ${(run.samples.length / seconds).toFixed(0)} starts/s`);
      }
    }
    console.log(`\nBare workflow.start, c=${connections}, ${rounds} alternating rounds of ${seconds} s; ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(2)}\n`);
    console.log('| Dev server | Starts/s | p50 ms | p99 ms | Failures |\n|---|---:|---:|---:|---:|');
    for (const [i, { name, server }] of servers.entries()) {
      const m = fromSamples(name, connections, seconds * rounds, totals[i]!.samples, totals[i]!.failures, '');
      console.log(`| ${server.describe} | ${m.requestsPerSecond.toFixed(0)} | ${m.latencyMs.p50} | ${m.latencyMs.p99} | ${m.non2xx} |`);
    }
    await Promise.all(clients.map((c) => c.connection.close()));
  } finally {
    for (const { server } of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
