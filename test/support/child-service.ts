import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pino from 'pino';
import type { Logger } from '../../src/logger';
import { entryArgs } from './entry-command';

/** What the child runs: a real entry point, and the log line that says it is ready. */
const ENTRIES = {
  api: { ready: 'API listening' },
  worker: { ready: 'worker started' },
} as const;

/**
 * The API or the worker as a separate OS process, started from its real entry point (entryArgs).
 * It logs at info (its readiness line); lines at or above `forwardLevel` are passed on to the
 * test's own logger destination, so a test that captures the service's log lines sees every
 * process's, and an error in a child shows in the test output as an in-process one would.
 */
export class ChildService {
  private child: ChildProcess | null = null;
  output = '';

  constructor(
    private readonly role: keyof typeof ENTRIES,
    private readonly env: NodeJS.ProcessEnv,
    private readonly forward?: { logger: Logger; level: string },
  ) {}

  async start(): Promise<void> {
    const root = path.resolve(__dirname, '../..');
    const entry = ENTRIES[this.role];
    this.output = '';
    const child = spawn(process.execPath, entryArgs(this.role), {
      cwd: root,
      env: { ...this.env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const threshold = this.forward ? (pino.levels.values[this.forward.level] ?? Infinity) : Infinity;
    let pending = '';
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString();
      if (!this.forward) return;
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      // The destination is read per line: a test may swap it (pino's stream symbol) to capture lines.
      const destination = () => (this.forward!.logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym]!;
      for (const line of lines) if (levelOf(line) >= threshold) destination().write(`${line}\n`);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    // Loading the service (under tsx, when not compiled) takes over a minute when other work has the CPUs.
    const deadline = Date.now() + 180_000;
    while (!this.output.includes(entry.ready)) {
      if (child.exitCode !== null) throw new Error(`${this.role} exited early:\n${this.output}`);
      if (Date.now() > deadline) {
        // Nobody stops a service that never started: the child must not outlive its test.
        child.kill('SIGKILL');
        throw new Error(`${this.role} did not start:\n${this.output}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Waits for a process that ends by itself (a crash test's worker killing itself at a named step). */
  async waitForExit(timeoutMs = 30_000): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${this.role} did not exit:\n${this.output}`)), timeoutMs);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.child = null;
  }

  /** SIGKILL: no shutdown, no draining, exactly like a crash. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /** SIGTERM: the worker drains its in-flight tasks, the API closes its server. */
  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
    this.child = null;
  }
}

/**
 * pino's numeric level of a JSON log line. Other lines (the Temporal SDK's own multi-line logs, a
 * stack trace) count as errors only when they say so; the whole output stays in `output`.
 */
function levelOf(line: string): number {
  if (!line.trim()) return -Infinity;
  try {
    const level = (JSON.parse(line) as { level?: unknown }).level;
    return typeof level === 'number' ? level : pino.levels.values.error!;
  } catch {
    return /\[ERROR\]|Error\b/.test(line) ? pino.levels.values.error! : -Infinity;
  }
}
