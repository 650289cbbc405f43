import { createHash, randomBytes } from 'node:crypto';

/** Identifier prefixes fixed by the contract (and the admin spec for mer_/pm_/prod_). */
export const ID_PREFIX = {
  merchant: 'mer_',
  customer: 'cus_',
  checkout: 'chk_',
  charge: 'ch_',
  event: 'ev_',
  review: 'cpilr_',
  kyc: 'id_',
  geoCheck: 'gc_',
  devicePing: 'dp_',
  product: 'prod_',
  paymentMethod: 'pm_',
  refund: 're_',
  subscription: 'sub_',
  apiKey: 'key_',
  clientSecret: 'secret_',
  signingSecret: 'wss_',
  merchantUser: 'usr_',
  invitation: 'inv_',
  auditEntry: 'aud_',
  mail: 'mail_',
  operatorUser: 'opr_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 from a CSPRNG with rejection sampling, so every character is uniform (no modulo bias). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Ids carry 24 random base62 characters (~143 bits): unguessable, so knowing one id reveals no other. */
export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + randomToken(24);
}

/**
 * Base62 from a keyed digest instead of the CSPRNG, with the same rejection sampling: the same
 * digest always gives the same token (a secret that a retried request must find again).
 */
export function tokenFromDigest(digest: Buffer, length: number): string {
  let out = '';
  for (let bytes = digest; out.length < length; bytes = createHash('sha512').update(bytes).digest()) {
    for (const byte of bytes) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Secrets are longer than ids (~238 bits). */
export function newSecret(kind: 'apiKey' | 'clientSecret' | 'signingSecret'): string {
  return ID_PREFIX[kind] + randomToken(40);
}
