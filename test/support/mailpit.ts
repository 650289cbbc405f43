import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

/** The version scripts/lib.sh builds (find_or_build_mailpit). */
export const MAILPIT_VERSION = '1.33.1';

export interface RunningMailpit {
  smtpUrl: string;
  apiUrl: string;
  stop(): Promise<void>;
}

/** MAILPIT_PATH, else the build scripts/lib.sh caches (PAYMENTS_CACHE_DIR or ~/.cache/payments-service). */
function mailpitPath(): string {
  if (process.env.MAILPIT_PATH) return process.env.MAILPIT_PATH;
  const cache = process.env.PAYMENTS_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'payments-service');
  const cached = path.join(cache, `mailpit-${MAILPIT_VERSION}`, 'mailpit');
  if (!existsSync(cached)) throw new Error(`Mailpit not found at ${cached}: run the tests with \`npm test\`, or \`source scripts/lib.sh && prepare_test_run\` first`);
  return cached;
}

/** A Mailpit of the run's own on free ports, its messages in a temporary database; `extraArgs` add flags (say, `--enable-chaos`). */
export async function startMailpit(extraArgs: string[] = []): Promise<RunningMailpit> {
  const [smtpPort, httpPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(path.join(tmpdir(), 'payments-mailpit-'));
  const child: ChildProcess = spawn(
    mailpitPath(),
    ['--smtp', `127.0.0.1:${smtpPort}`, '--listen', `127.0.0.1:${httpPort}`, '--database', path.join(dir, 'mailpit.db'), '--disable-version-check', '--quiet', ...extraArgs],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const apiUrl = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Mailpit exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${apiUrl}/api/v1/messages?limit=1`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('Mailpit did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    apiUrl,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Mail {
  id: string;
  subject: string;
  text: string;
  to: string[];
}

/** How many mails to `email` (with a subject matching `subject`) the run's Mailpit holds. */
export async function countMailsTo(email: string, subject: RegExp): Promise<number> {
  const list = (await (await fetch(`${process.env.MAILPIT_URL}/api/v1/messages?limit=500`)).json()) as { messages: Array<{ Subject: string; To: Array<{ Address: string }> }> };
  return list.messages.filter((m) => subject.test(m.Subject) && m.To.some((to) => to.Address.toLowerCase() === email.toLowerCase())).length;
}

/** The newest mail to `email` in the run's Mailpit (MAILPIT_URL, set by the global setup), waiting for it to arrive. */
export async function latestMailTo(email: string, subject?: RegExp, timeoutMs = 10_000): Promise<Mail> {
  const apiUrl = process.env.MAILPIT_URL;
  if (!apiUrl) throw new Error('MAILPIT_URL is not set: the global setup starts Mailpit');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = (await (await fetch(`${apiUrl}/api/v1/messages?limit=200`)).json()) as { messages: Array<{ ID: string; Subject: string; To: Array<{ Address: string }> }> };
    const found = list.messages.find((m) => m.To.some((to) => to.Address.toLowerCase() === email.toLowerCase()) && (!subject || subject.test(m.Subject)));
    if (found) {
      const message = (await (await fetch(`${apiUrl}/api/v1/message/${found.ID}`)).json()) as { ID: string; Subject: string; Text: string; To: Array<{ Address: string }> };
      return { id: message.ID, subject: message.Subject, text: message.Text, to: message.To.map((to) => to.Address) };
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${email} arrived`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The first link in a mail's text. */
export function linkIn(mail: Mail): string {
  const match = /https?:\/\/\S+/.exec(mail.text);
  if (!match) throw new Error(`no link in mail: ${mail.text}`);
  return match[0];
}
