import pg from 'pg';
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

/** Where a listener connects: the pool's own connection settings (knex keeps them parsed, as pg.Client accepts them). */
export type ListenerConnection = string | pg.ClientConfig;

/** A connection of its own that LISTENs on the channel. */
export interface CredentialChangeListener {
  /** Resolves once LISTEN is in place; rejects when the connection failed (onLost has run). */
  ready: Promise<void>;
  /** One query on the connection: PostgreSQL sends a session its pending notifications before the result. */
  roundTrip(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens for announcements on a connection outside the pool (a pooled one would be handed to
 * queries). `onLost` runs once when the connection fails or ends; the listener is then closed.
 */
export function listenForCredentialChanges(connection: ListenerConnection, onChange: (merchantId: string) => void, onLost: () => void): CredentialChangeListener {
  const client = new pg.Client(typeof connection === 'string' ? { connectionString: connection } : connection);
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    client.removeAllListeners();
    client.on('error', () => undefined);
    await client.end().catch(() => undefined);
  };
  const lost = () => {
    if (ended) return;
    void end();
    onLost();
  };
  client.on('error', lost);
  client.on('end', lost);
  client.on('notification', (message) => {
    if (message.channel === CREDENTIALS_CHANGED_CHANNEL && message.payload) onChange(message.payload);
  });
  const ready = client
    .connect()
    .then(() => client.query(`LISTEN ${CREDENTIALS_CHANGED_CHANNEL}`))
    .then(() => undefined);
  ready.catch(lost);
  return { ready, roundTrip: () => client.query('SELECT 1').then(() => undefined), close: end };
}
