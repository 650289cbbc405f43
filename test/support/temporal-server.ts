import { Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../workflows/contract';
import { freePort } from './free-port';
import { priorityDevServerArgs } from '../../src/temporal/server-config';

/**
 * A Temporal dev server of the test's own, on a fixed port and a database file, so the test can kill
 * it with SIGKILL (as a crash of the whole service would: admitted updates and unfinished workflow
 * tasks are lost) and start it again where it was. The run's shared server is never touched.
 */
export class TemporalDevServer {
  private child: ChildProcess | null = null;
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'payments-temporal-'));

  private constructor(private readonly port: number) {}

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  static async start(): Promise<TemporalDevServer> {
    const server = new TemporalDevServer(await freePort());
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    const cli = process.env.TEMPORAL_CLI_PATH;
    if (!cli) throw new Error('TEMPORAL_CLI_PATH is not set');
    const attributes = SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]);
    const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(this.port), '--db-filename', path.join(this.dir, 'temporal.db'), '--log-level', 'error', ...priorityDevServerArgs(), ...attributes];
    let output = '';
    const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    this.child = child;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`temporal exited early:\n${output}`);
      try {
        const connection = await Connection.connect({ address: this.address, connectTimeout: 1_000 });
        try {
          await connection.workflowService.describeNamespace({ namespace: 'default' });
          return;
        } finally {
          await connection.close();
        }
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`temporal did not start: ${String(error)}\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** SIGKILL: nothing is flushed or handed over, as in a crash. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.child = null;
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
