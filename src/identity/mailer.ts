import nodemailer from 'nodemailer';
import type { Config } from '../config';
import type { Logger } from '../logger';

/** One mail to one person: a subject and a plain-text body. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * Sends the merchant dashboard's mails (invitations, password resets) over SMTP_URL with
 * nodemailer; callers queue them in the mail outbox (mail-outbox.ts), which retries failures. Without SMTP_URL (development and tests only; production refuses to start without
 * it) a mail is written to the log instead, link included, so a local invitation can be followed.
 */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom'>, logger: Logger): Mailer {
  if (!config.smtpUrl) {
    return {
      async send(mail) {
        logger.info({ to: mail.to, subject: mail.subject, text: mail.text }, 'SMTP_URL not set: mail logged, not sent');
      },
    };
  }
  // Timeouts well inside the mail outbox's send lease, so a hung server is a failed attempt, retried.
  const transport = nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  return {
    async send(mail) {
      await transport.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}
