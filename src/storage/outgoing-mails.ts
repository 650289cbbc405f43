import type { Db } from './db';

export interface OutgoingMailRow {
  id: string;
  recipient: string;
  subject: string;
  body_sealed: string | null;
  attempts: number;
  next_attempt_at: Date;
  expires_at: Date;
  sent_at: Date | null;
  abandoned_at: Date | null;
  last_error: string | null;
  created_at: Date;
}

export async function insertOutgoingMail(db: Db, row: Pick<OutgoingMailRow, 'id' | 'recipient' | 'subject' | 'body_sealed' | 'expires_at'>): Promise<void> {
  await db('outgoing_mails').insert(row);
}

/**
 * Claims mails due for an attempt (one by id, or a batch of the oldest due): each claimed row's
 * next attempt moves `leaseMs` ahead, so a second sender (the writer's first try against the
 * worker's sweep, or two workers) skips it while this one sends. Not merchant-scoped: mails are
 * the service's own.
 */
export async function claimDueMailsUnscoped(db: Db, { id, leaseMs, limit }: { id?: string; leaseMs: number; limit: number }): Promise<OutgoingMailRow[]> {
  const due = db('outgoing_mails')
    .select('id')
    .whereNull('sent_at')
    .whereNull('abandoned_at')
    .where('next_attempt_at', '<=', db.fn.now())
    .modify((q) => {
      if (id) void q.where({ id });
    })
    .orderBy('next_attempt_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  return db('outgoing_mails')
    .whereIn('id', due)
    .update({ next_attempt_at: db.raw(`now() + make_interval(secs => ?)`, [leaseMs / 1000]) })
    .returning('*');
}

/** Sent: the body (with its one-time link) is erased. */
export async function markMailSent(db: Db, id: string, attempts: number): Promise<void> {
  await db('outgoing_mails').where({ id }).update({ sent_at: db.fn.now(), attempts, body_sealed: null, last_error: null });
}

/** A failed attempt: tried again at `retryAt`, or abandoned (body erased) when there is none. */
export async function markMailFailed(db: Db, id: string, attempts: number, error: string, retryAt: Date | null): Promise<void> {
  await db('outgoing_mails')
    .where({ id })
    .update(retryAt ? { attempts, last_error: error, next_attempt_at: retryAt } : { attempts, last_error: error, abandoned_at: db.fn.now(), body_sealed: null });
}

export async function findOutgoingMailUnscoped(db: Db, id: string): Promise<OutgoingMailRow | undefined> {
  return db('outgoing_mails').where({ id }).first();
}
