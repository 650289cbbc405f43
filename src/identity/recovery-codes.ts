import { randomInt } from 'node:crypto';
import { hashSecret } from '../crypto';
import type { Db } from '../storage/db';
import { countUnusedRecoveryCodesUnscoped, replaceRecoveryCodesUnscoped, spendRecoveryCodeUnscoped } from '../storage/recovery-codes';

/** Codes a person holds at once: enough for years of lost phones, few enough to write down. */
export const RECOVERY_CODE_COUNT = 10;

// No 0/o, 1/l: a code is copied from paper. 32 symbols × 10 = 50 bits, so a SHA-256 of it cannot be reversed.
const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const CODE_LENGTH = 10;

/** How a code is compared: lower case, without the dash or spaces people copy with it. */
const normalized = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');

function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i += 1) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * Gives the person a new set of one-time recovery codes, replacing any earlier set, and answers
 * them: they are shown once (only their hashes are kept), at enrolment or on regeneration.
 */
export async function issueRecoveryCodes(db: Db, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await replaceRecoveryCodesUnscoped(db, userId, codes.map((code) => hashSecret(normalized(code))));
  return codes;
}

/** Spends one of the person's recovery codes (each works once); false when it is not an unused code of theirs. */
export function spendRecoveryCode(db: Db, userId: string, code: string): Promise<boolean> {
  return spendRecoveryCodeUnscoped(db, userId, hashSecret(normalized(code)));
}

export function unusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  return countUnusedRecoveryCodesUnscoped(db, userId);
}
