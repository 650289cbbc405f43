import pino from 'pino';

/**
 * One structured logger per process. Secrets and identity numbers are redacted by path so a
 * careless log call can never print them (last_four_ssn must appear in no log line).
 */
export const REDACTED_PATHS = [
  'last_four_ssn',
  '*.last_four_ssn',
  '*.*.last_four_ssn',
  'req.headers.authorization',
  'req.headers["x-client-secret"]',
  'headers.authorization',
  'card.number',
  '*.card.number',
  'card.cvc',
  '*.card.cvc',
  'bank_account.account_number',
  '*.bank_account.account_number',
];

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): pino.Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

export type Logger = pino.Logger;
