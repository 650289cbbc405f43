import type { Db } from './db';

/** PostgreSQL channel on which a change to a merchant's credentials or settings is announced. */
export const CREDENTIALS_CHANGED_CHANNEL = 'merchant_credentials_changed';

const localSubscribers = new WeakMap<Db, Set<(merchantId: string) => void>>();

/**
 * Tells every API process to forget what it cached about the merchant's credentials
 * (src/http/credential-cache.ts): this process's caches at once, the others by a NOTIFY, which
 * each reads on its listener's connection before it trusts a cached entry again.
 */
export async function announceCredentialsChanged(db: Db, merchantId: string): Promise<void> {
  for (const subscriber of localSubscribers.get(db) ?? []) subscriber(merchantId);
  await db.raw('SELECT pg_notify(?, ?)', [CREDENTIALS_CHANGED_CHANNEL, merchantId]);
}

/** This process's side of the announcement (the other processes hear the NOTIFY). */
export function onCredentialsChanged(db: Db, subscriber: (merchantId: string) => void): void {
  const set = localSubscribers.get(db) ?? new Set();
  set.add(subscriber);
  localSubscribers.set(db, set);
}
