import pg from 'pg';
import type { Db } from '../storage/db';
import { CREDENTIALS_CHANGED_CHANNEL, onCredentialsChanged } from '../storage/credential-changes';
import type { MerchantRow } from '../storage/merchants';

/** How long an authenticated credential is trusted without asking the database again. */
export const CREDENTIAL_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1_000;

interface Entry {
  merchant: MerchantRow;
  expiresAt: number;
}

/**
 * Authenticated credentials (by the hash of the presented secret) and their merchant, for a few
 * seconds, so a request does not pay two lookups before its own work. A key revoked or a
 * merchant's settings changed anywhere (any API process) is forgotten at once: every process
 * LISTENs on the channel storage NOTIFYs on such changes (PostgreSQL relays it at commit, before
 * the caller has its answer). While that listener is not connected, nothing is cached, so a
 * missed notification can never keep a revoked key alive; the TTL bounds anything else.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every invalidation: a lookup that raced one is not cached. */
  private epoch = 0;
  private listener: pg.Client | null = null;
  private listening = false;
  private closed = false;
  private reconnect: NodeJS.Timeout | null = null;

  constructor(private readonly connection: string | pg.ClientConfig, private readonly now: () => number = Date.now) {}

  /** Whether answers are being cached (the listener is connected). */
  get active(): boolean {
    return this.listening;
  }

  /** The cached merchant of a credential hash, or the result of `load` (cached when the listener is up). */
  async get(hash: Buffer, load: () => Promise<MerchantRow | undefined>): Promise<MerchantRow | undefined> {
    return this.lookup(hash.toString('base64'), load);
  }

  /**
   * A merchant by id, for the wallet (whose credential, a checkout's client secret, is checked
   * against the checkout row itself): cached and forgotten exactly like a credential's merchant.
   */
  async getMerchant(merchantId: string, load: () => Promise<MerchantRow | undefined>): Promise<MerchantRow | undefined> {
    return this.lookup(`merchant:${merchantId}`, load); // ':' never occurs in a base64 hash key
  }

  private async lookup(key: string, load: () => Promise<MerchantRow | undefined>): Promise<MerchantRow | undefined> {
    this.start();
    if (this.entries.has(key)) {
      // A change announced before this request arrived may sit unread on the listener's socket
      // (ready in the same poll): let it be read before trusting the entry.
      await new Promise((resolve) => setImmediate(resolve));
      const hit = this.entries.get(key);
      if (hit && hit.expiresAt > this.now()) return hit.merchant;
      if (hit) this.entries.delete(key);
    }
    const epoch = this.epoch;
    const merchant = await load();
    if (merchant && this.listening && epoch === this.epoch) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { merchant, expiresAt: this.now() + CREDENTIAL_TTL_MS });
    }
    return merchant;
  }

  /** Forgets every credential of the merchant (a revocation, a settings change). */
  invalidate(merchantId: string): void {
    this.epoch++;
    for (const [key, entry] of this.entries) if (entry.merchant.id === merchantId) this.entries.delete(key);
  }

  private clear(): void {
    this.epoch++;
    this.entries.clear();
  }

  private start(): void {
    if (this.listener || this.closed || this.reconnect) return;
    const client = new pg.Client(typeof this.connection === 'string' ? { connectionString: this.connection } : this.connection);
    this.listener = client;
    const lost = () => {
      if (this.listener !== client) return;
      this.listening = false;
      this.listener = null;
      this.clear();
      client.removeAllListeners();
      void client.end().catch(() => undefined);
      if (!this.closed) this.reconnect = setTimeout(() => void (this.reconnect = null), RECONNECT_MS).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.channel === CREDENTIALS_CHANGED_CHANNEL && message.payload) this.invalidate(message.payload);
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${CREDENTIALS_CHANGED_CHANNEL}`))
      .then(() => {
        if (this.listener === client) this.listening = true;
      })
      .catch(lost);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.reconnect) clearTimeout(this.reconnect);
    const client = this.listener;
    this.listener = null;
    this.clear();
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}

const caches = new WeakMap<Db, CredentialCache>();

/** One cache per database pool (that is, per process and database). */
export function credentialCacheFor(db: Db): CredentialCache {
  let cache = caches.get(db);
  if (!cache) {
    // The pool's own connection settings (knex keeps them parsed, as pg.Client accepts them).
    const created = new CredentialCache(db.client.config.connection as string | pg.ClientConfig);
    onCredentialsChanged(db, (merchantId) => created.invalidate(merchantId));
    caches.set(db, created);
    cache = created;
  }
  return cache;
}

/** Stops the listener of the pool's cache, if it has one (before the pool is destroyed). */
export async function closeCredentialCache(db: Db): Promise<void> {
  await caches.get(db)?.close();
  caches.delete(db);
}
