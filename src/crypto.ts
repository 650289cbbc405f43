import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a credential: what is stored for API keys and client secrets. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant-time equality of two hashes, so comparison time reveals nothing about a credential. */
export function hashesEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * AES-256-GCM sealing for values the service must read back in plain (webhook signing
 * secrets, last four of an SSN). Format: v1.<iv>.<tag>.<ciphertext>, base64url parts.
 */
export class Sealer {
  private readonly key: Buffer;
  private readonly fingerprints: string;

  constructor(secret: string) {
    this.key = createHash('sha256').update(`sealer:${secret}`).digest();
    this.fingerprints = createHash('sha256').update(`fingerprint:${this.key.toString('hex')}`).digest('hex');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('Unknown sealed value format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }

  /**
   * A digest of `input` under the sealing key, separated by `purpose`: the same input always gives
   * it again, and nobody without the key can compute it (a secret a retried request must find again).
   */
  derive(purpose: string, input: string): Buffer {
    return createHmac('sha512', this.key).update(`${purpose}\0${input}`).digest();
  }

  /** A keyed digest for fingerprints: stable for the same input, useless without the key. */
  fingerprintKey(): string {
    return this.fingerprints;
  }
}
