import { hash, verify } from '@node-rs/argon2';
import { Secret, TOTP } from 'otpauth';
import { hashSecret } from '../crypto';
import { randomToken } from '../domain/ids';

/**
 * argon2id (the library's default algorithm; its enum is a const enum that isolated modules cannot
 * name) with its default cost (19 MiB, 2 passes): OWASP's recommended minimum. Tests check the
 * stored hash names argon2id.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * A hash to verify against when no account has the email, so a wrong email costs the same time
 * as a wrong password and the answer's timing does not tell which emails have accounts.
 */
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(randomToken(24));
  return decoyHash;
}

/** A one-time token (invitation, reset, session): 43 base62 characters; only its SHA-256 is stored. */
export function newOneTimeToken(): { token: string; hash: Buffer } {
  const token = randomToken(43);
  return { token, hash: hashSecret(token) };
}

/** The CSRF token of a session, derived from its token: nothing more to store, and worthless without the cookie. */
export function csrfTokenOf(sessionToken: string): string {
  return hashSecret(`csrf:${sessionToken}`).toString('base64url');
}

/** A new 160-bit authenticator secret, base32 (RFC 4226's recommended length). */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

const TOTP_PERIOD_SECONDS = 30;

/** RFC 6238 defaults every authenticator app takes: SHA-1, 6 digits, 30-second steps. */
function totpOf(secret: string, label = '', issuer = ''): TOTP {
  return new TOTP({ issuer, label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_SECONDS });
}

export function totpUri(secret: string, email: string, issuer: string): string {
  return totpOf(secret, email, issuer).toString();
}

/**
 * The code of a secret now, or `stepOffset` 30-second steps from now (tests act as the
 * authenticator app with it; a code is used once, so a second sign-in within one step takes the
 * next step's code, which the drift window accepts).
 */
export function currentTotpCode(secret: string, stepOffset = 0): string {
  return totpOf(secret).generate({ timestamp: Date.now() + stepOffset * TOTP_PERIOD_SECONDS * 1000 });
}

/**
 * The time step of a six-digit code of the secret, accepting the neighbouring step either side for
 * clock drift, or null when the code is not the secret's. The caller spends the step
 * (claimTotpStepUnscoped), so each code works once.
 */
export function totpCodeStep(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  try {
    const delta = totpOf(secret).validate({ token: code, window: 1, timestamp: now });
    return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD_SECONDS) + delta;
  } catch {
    return null;
  }
}
