import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);

/** The PostgreSQL server binaries: PG_BIN, else the newest /usr/lib/postgresql/<version>/bin with initdb. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions.length) throw new Error(`no PostgreSQL server binaries under ${root} (set PG_BIN to the directory holding initdb and pg_ctl)`);
  return path.join(root, versions[0]!, 'bin');
}

/**
 * A PostgreSQL cluster of one test's own, on a free port, so a test can stop and start its server
 * without touching the shared one. initdb refuses to run as root, so as root (CI) every server
 * command runs as the `postgres` user, in a data directory it owns; as anyone else, as that user.
 */
export class PgCluster {
  private readonly bin = binDir();
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'payments-pg-'));
  private readonly data = path.join(this.dir, 'data');
  private readonly logFile = path.join(this.dir, 'server.log');
  private readonly asPostgres = userInfo().uid === 0;
  port = 0;

  /** The cluster's maintenance database (trust authentication, user postgres). */
  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private async serverCommand(tool: string, args: string[]): Promise<string> {
    const file = path.join(this.bin, tool);
    // runuser lives in /usr/sbin, which a CI job's PATH may lack.
    const runuser = existsSync('/usr/sbin/runuser') ? '/usr/sbin/runuser' : 'runuser';
    const [command, argv] = this.asPostgres ? [runuser, ['-u', 'postgres', '--', file, ...args]] : [file, args];
    try {
      const { stdout } = await run(command, argv, { timeout: 60_000 });
      return stdout;
    } catch (error) {
      throw new Error(`${tool} ${args.join(' ')} failed: ${(error as Error).message}\n${this.log()}`);
    }
  }

  async init(): Promise<this> {
    if (this.asPostgres) {
      const { stdout } = await run('id', ['-u', 'postgres']).catch(() => ({ stdout: '' }));
      const uid = Number(stdout.trim());
      if (!stdout.trim()) throw new Error('running as root, and there is no postgres user to run initdb as');
      const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
      chownSync(this.dir, uid, gid);
    }
    this.port = await freePort();
    // --no-sync and fsync=off: a throwaway cluster, fast on a busy machine.
    await this.serverCommand('initdb', ['-D', this.data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale', '--no-sync']);
    await this.start();
    return this;
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    await this.serverCommand('pg_ctl', ['-D', this.data, '-l', this.logFile, '-o', options, '-w', '-t', '60', 'start']);
  }

  /** Stops the server: `fast` ends every session at once (the outage), as an operator's restart would. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.serverCommand('pg_ctl', ['-D', this.data, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  /** Stops the server if it runs and removes its files; never throws (it runs in afterAll). */
  async destroy(): Promise<void> {
    if (existsSync(path.join(this.data, 'postmaster.pid'))) await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  log(): string {
    try {
      return readFileSync(this.logFile, 'utf8').slice(-4_000);
    } catch {
      return '';
    }
  }
}
