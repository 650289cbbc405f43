import type { Sealer } from '../crypto';
import { newId } from '../domain/ids';
import type { Logger } from '../logger';
import { everyWithoutOverlap } from '../periodic';
import type { Db } from '../storage/db';
import { claimDueMailsUnscoped, insertOutgoingMail, markMailFailed, markMailSent, type OutgoingMailRow } from '../storage/outgoing-mails';
import type { Mail, Mailer } from './mailer';

/**
 * How long after each failed attempt the next one waits. A mail server that refuses for a moment
 * (a restart, a greylisting answer) is retried within a minute; one that stays down is tried for
 * about half a day. After the last, or once the mail's link has expired, the mail is abandoned.
 */
export const MAIL_RETRY_DELAYS_SECONDS = [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600] as const;
export const MAX_MAIL_ATTEMPTS = MAIL_RETRY_DELAYS_SECONDS.length + 1;
/** How long a sender holds a mail it claimed: longer than the SMTP transport's own timeouts (src/identity/mailer.ts). */
const SEND_LEASE_MS = 120_000;
const SWEEP_BATCH = 50;

export interface MailOutboxDeps {
  db: Db;
  sealer: Sealer;
  mailer: Mailer;
  logger: Logger;
}

/**
 * Queues a mail in the caller's transaction, beside what it announces: if the transaction commits
 * the mail is sent (now by `sendQueuedMail`, later by the worker's sweep), if it rolls back there
 * is no mail. `expiresAt` is when its link stops working.
 */
export async function queueMail(trx: Db, sealer: Sealer, mail: Mail, expiresAt: Date): Promise<string> {
  const id = newId('mail');
  await insertOutgoingMail(trx, { id, recipient: mail.to, subject: mail.subject, body_sealed: sealer.seal(mail.text), expires_at: expiresAt });
  return id;
}

/** The first attempt, right after the commit. It never throws: a failure leaves the mail to the sweep. */
export async function sendQueuedMail(deps: MailOutboxDeps, id: string): Promise<void> {
  try {
    for (const mail of await claimDueMailsUnscoped(deps.db, { id, leaseMs: SEND_LEASE_MS, limit: 1 })) await attempt(deps, mail);
  } catch (error) {
    deps.logger.warn({ err: error, mail_id: id }, 'mail not sent yet; the sweep retries it');
  }
}

/** One sweep: every mail due for an attempt (a batch), oldest first. */
export async function sweepMails(deps: MailOutboxDeps): Promise<number> {
  const due = await claimDueMailsUnscoped(deps.db, { leaseMs: SEND_LEASE_MS, limit: SWEEP_BATCH });
  for (const mail of due) await attempt(deps, mail);
  return due.length;
}

/** The worker's retry loop for mails whose first attempt failed or never ran (the writer crashed). */
export function startMailSweeper(deps: MailOutboxDeps, intervalMs: number): () => Promise<void> {
  return everyWithoutOverlap(intervalMs, async () => {
    try {
      await sweepMails(deps);
    } catch (error) {
      deps.logger.warn({ err: error }, 'mail sweep failed; will retry');
    }
  });
}

async function attempt(deps: MailOutboxDeps, mail: OutgoingMailRow): Promise<void> {
  const attempts = mail.attempts + 1;
  if (!mail.body_sealed || mail.expires_at.getTime() <= Date.now()) {
    deps.logger.error({ mail_id: mail.id, attempts: mail.attempts }, 'mail abandoned: its link expired before it could be sent');
    await markMailFailed(deps.db, mail.id, mail.attempts, mail.last_error ?? 'link expired before sending', null);
    return;
  }
  try {
    await deps.mailer.send({ to: mail.recipient, subject: mail.subject, text: deps.sealer.open(mail.body_sealed) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const delay = MAIL_RETRY_DELAYS_SECONDS[attempts - 1];
    const retryAt = delay === undefined ? null : new Date(Date.now() + delay * 1000);
    if (retryAt && retryAt < mail.expires_at) {
      deps.logger.warn({ err: error, mail_id: mail.id, attempts, retry_at: retryAt.toISOString() }, 'mail not sent; will retry');
      await markMailFailed(deps.db, mail.id, attempts, message, retryAt);
    } else {
      deps.logger.error({ err: error, mail_id: mail.id, attempts }, 'mail abandoned after its last attempt');
      await markMailFailed(deps.db, mail.id, attempts, message, null);
    }
    return;
  }
  await markMailSent(deps.db, mail.id, attempts);
}
