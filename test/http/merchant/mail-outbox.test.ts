import { Sealer } from '../../../src/crypto';
import { createMailer } from '../../../src/identity/mailer';
import { MAIL_RETRY_DELAYS_SECONDS, MAX_MAIL_ATTEMPTS, queueMail, sendQueuedMail, startMailSweeper, sweepMails, type MailOutboxDeps } from '../../../src/identity/mail-outbox';
import { findOutgoingMailUnscoped } from '../../../src/storage/outgoing-mails';
import { startService, type Service } from '../../support/harness';
import { startMailpit, type RunningMailpit } from '../../support/mailpit';
import { waitFor } from '../../support/fixtures';
import { uniqueEmail } from '../../support/merchant-accounts';

/**
 * The mail outbox against a real SMTP server that refuses on demand: a Mailpit of this file's own
 * with its chaos triggers (the run's shared Mailpit is left alone, other files read it).
 */
let service: Service;
let mailpit: RunningMailpit;
let outbox: MailOutboxDeps;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
  mailpit = await startMailpit(['--enable-chaos']);
  const { db, logger } = service.deps;
  outbox = { db, logger, sealer: service.deps.sealer, mailer: createMailer({ smtpUrl: mailpit.smtpUrl, mailFrom: 'payments@example.test' }, logger) };
});
afterAll(async () => {
  await mailpit?.stop();
  await service?.stop();
});

/** Every RCPT TO refused with a 451 (a temporary failure) while on. */
async function smtpRefuses(on: boolean): Promise<void> {
  const res = await fetch(`${mailpit.apiUrl}/api/v1/chaos`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Recipient: { ErrorCode: 451, Probability: on ? 100 : 0 } }),
  });
  expect(res.status).toBe(200);
}

async function mailsTo(email: string): Promise<Array<{ Subject: string }>> {
  const list = (await (await fetch(`${mailpit.apiUrl}/api/v1/search?query=${encodeURIComponent(`to:"${email}"`)}`)).json()) as { messages: Array<{ Subject: string }> };
  return list.messages;
}

const inAnHour = () => new Date(Date.now() + 3_600_000);
const queue = (to: string, expiresAt = inAnHour()) => service.deps.db.transaction((trx) => queueMail(trx, outbox.sealer, { to, subject: 'Your link', text: 'https://example.test/link?token=secret' }, expiresAt));
const makeDue = (id: string) => service.deps.db('outgoing_mails').where({ id }).update({ next_attempt_at: service.deps.db.raw("now() - interval '1 second'") });
const row = async (id: string) => (await findOutgoingMailUnscoped(service.deps.db, id))!;

afterEach(() => smtpRefuses(false));

it('a mail the server refuses is kept, sealed, and sent by a later sweep once the server takes it', async () => {
  const to = uniqueEmail();
  const id = await queue(to);
  expect((await row(id)).body_sealed).not.toContain('token=secret');
  await smtpRefuses(true);
  await sendQueuedMail(outbox, id);
  const failed = await row(id);
  expect([failed.attempts, failed.sent_at, failed.abandoned_at]).toEqual([1, null, null]);
  expect(failed.last_error).toMatch(/451/);
  const wait = failed.next_attempt_at.getTime() - Date.now();
  expect(wait).toBeGreaterThan((MAIL_RETRY_DELAYS_SECONDS[0] - 5) * 1000);
  expect(wait).toBeLessThanOrEqual(MAIL_RETRY_DELAYS_SECONDS[0] * 1000);
  // Not due yet: a sweep leaves it alone.
  await smtpRefuses(false);
  await sweepMails(outbox);
  expect((await row(id)).attempts).toBe(1);
  await makeDue(id);
  await sweepMails(outbox);
  const sent = await row(id);
  expect([sent.attempts, sent.body_sealed, sent.last_error]).toEqual([2, null, null]);
  expect(sent.sent_at).toBeInstanceOf(Date);
  expect(await mailsTo(to)).toHaveLength(1);
  // Sent is final: later sweeps never send it again.
  await makeDue(id);
  await sweepMails(outbox);
  expect(await mailsTo(to)).toHaveLength(1);
});

it('a mail whose writer stopped before sending it (committed, never tried) is sent by the running sweeper', async () => {
  const to = uniqueEmail();
  const id = await queue(to);
  const stop = startMailSweeper(outbox, 100);
  try {
    await waitFor(async () => (await row(id)).sent_at !== null, 10_000);
  } finally {
    await stop();
  }
  expect((await row(id)).attempts).toBe(1);
  expect(await mailsTo(to)).toHaveLength(1);
});

it('a mail queued in a transaction that rolls back is never sent', async () => {
  const to = uniqueEmail();
  let queued = '';
  await expect(
    service.deps.db.transaction(async (trx) => {
      queued = await queueMail(trx, outbox.sealer, { to, subject: 'Never', text: 'never' }, inAnHour());
      throw new Error('rolled back');
    }),
  ).rejects.toThrow('rolled back');
  expect(await findOutgoingMailUnscoped(service.deps.db, queued)).toBeUndefined();
});

it('the first attempt and a sweep at the same moment send the mail once', async () => {
  const to = uniqueEmail();
  const id = await queue(to);
  await Promise.all([sendQueuedMail(outbox, id), sweepMails(outbox), sendQueuedMail(outbox, id)]);
  expect((await row(id)).sent_at).toBeInstanceOf(Date);
  expect(await mailsTo(to)).toHaveLength(1);
});

it(`after ${MAX_MAIL_ATTEMPTS} refused attempts the mail is abandoned and its body erased`, async () => {
  const to = uniqueEmail();
  const id = await queue(to, new Date(Date.now() + 7 * 86_400_000));
  await smtpRefuses(true);
  for (let attempt = 1; attempt <= MAX_MAIL_ATTEMPTS; attempt += 1) {
    await makeDue(id);
    await sweepMails(outbox);
    expect((await row(id)).attempts).toBe(attempt);
  }
  const abandoned = await row(id);
  expect(abandoned.abandoned_at).toBeInstanceOf(Date);
  expect([abandoned.body_sealed, abandoned.sent_at]).toEqual([null, null]);
  await smtpRefuses(false);
  await makeDue(id);
  await sweepMails(outbox);
  expect([(await row(id)).attempts, await mailsTo(to)]).toEqual([MAX_MAIL_ATTEMPTS, []]);
});

it('a retry that would come after the link expires abandons the mail instead', async () => {
  const to = uniqueEmail();
  const id = await queue(to, new Date(Date.now() + 10_000));
  await smtpRefuses(true);
  await sendQueuedMail(outbox, id);
  const abandoned = await row(id);
  expect([abandoned.attempts, abandoned.body_sealed]).toEqual([1, null]);
  expect(abandoned.abandoned_at).toBeInstanceOf(Date);
});

it('a mail whose link expired while it waited is abandoned unsent', async () => {
  const to = uniqueEmail();
  const id = await queue(to, new Date(Date.now() + 60_000));
  await service.deps.db('outgoing_mails').where({ id }).update({ expires_at: service.deps.db.raw("now() - interval '1 second'") });
  await sweepMails(outbox);
  const abandoned = await row(id);
  expect([abandoned.attempts, abandoned.body_sealed, abandoned.sent_at]).toEqual([0, null, null]);
  expect(abandoned.abandoned_at).toBeInstanceOf(Date);
  expect(await mailsTo(to)).toEqual([]);
});

it('the sealed body opens to the mail queued', async () => {
  const id = await queue(uniqueEmail());
  expect(new Sealer(service.deps.config.dataEncryptionKey).open((await row(id)).body_sealed!)).toBe('https://example.test/link?token=secret');
});
