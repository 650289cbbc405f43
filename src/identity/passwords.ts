import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import { ValidationError } from '../http/errors';
import { hashPassword } from './secrets';

/** zxcvbn's own threshold for "safely unguessable": about 10^8 guesses, out of reach of an online attack and slow under argon2 offline. */
const MIN_SCORE = 3;

/**
 * The estimate runs on the event loop and grows faster than the length: the first characters
 * decide (a password whose first 64 are strong is strong), so no long password stalls the process.
 */
const JUDGED_CHARACTERS = 64;

// Built on first use: the common dictionaries (the passwords of public breaches, frequent words and names) take a moment to load.
let estimator: ZxcvbnFactory | undefined;

/**
 * Refuses (422) a password that zxcvbn finds easy to guess: a common or breached password, a
 * repeat, a sequence, a keyboard row, a date, or one built from the person's email. The length
 * rule is the schema's; this judges what length alone does not (`aaaaaaaaaaaa`).
 */
export function requireStrongPassword(password: string, email: string): void {
  estimator ??= new ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs });
  const { score } = estimator.check(password.slice(0, JUDGED_CHARACTERS), [email, ...email.split(/[@.+_-]/)]);
  if (score >= MIN_SCORE) return;
  throw new ValidationError(
    'Password is too easy to guess.',
    'It is a common password, or a pattern (repeated characters, a sequence, a keyboard row, a date), or built from your email: choose a passphrase of several unrelated words.',
  );
}

/** Judges a chosen password, then hashes it (argon2id). */
export function hashChosenPassword(password: string, email: string): Promise<string> {
  requireStrongPassword(password, email);
  return hashPassword(password);
}
