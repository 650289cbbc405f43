import type { Db } from '../storage/db';
import { listenForCredentialChanges, onCredentialsChanged, type CredentialChangeListener, type ListenerConnection } from '../storage/credential-changes';
import type { MerchantRow } from '../storage/merchants';

/** How long an authenticated credential is trusted without asking the database again. */
export const CREDENTIAL_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1_000;

/** What a credential authenticates: its merchant, and the merchant row's version as it was read. */
export interface Authenticated {
  merchant: MerchantRow;
  version?: string;
}

interface Entry {
  value: Authenticated;
  expiresAt: number;
}

/**
 * Authenticated credentials (by the hash of the presented secret) and their merchant, for a few
 * seconds, so a request does not pay two lookups before its own work. A key revoked or a
 * merchant's settings changed anywhere (any API process) is forgotten at once: every process
 * LISTENs on the channel storage NOTIFYs on such changes, and reads what is pending on that
 * connection before trusting an entry (caughtUp). While that listener is not connected, nothing
 * is cached, so a missed notification can never keep a revoked key alive; the TTL bounds anything else.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every invalidation: a lookup that raced one is not cached. */
  private epoch = 0;
  private listener: CredentialChangeListener | null = null;
  private listening = false;
  private closed = false;
  private reconnect: NodeJS.Timeout | null = null;
  /** The listener round trip in flight, and the one every hit since then waits for (caughtUp). */
  private roundTrip: Promise<boolean> | null = null;
  private nextRoundTrip: Promise<boolean> | null = null;

  constructor(private readonly connection: ListenerConnection, private readonly now: () => number = Date.now) {}

  /** Whether answers are being cached (the listener is connected). */
  get active(): boolean {
    return this.listening;
  }

  /**
   * The merchant of a credential hash (and its row version), cached or from `load` (cached when
   * the listener is up). `proof`: how a cached answer is made exact. `catch-up` (the default)
   * reads pending announcements first, one round trip before the caller's work; `statement`
   * trusts the entry at once, because the caller's own statement checks the credential
   * (credentialStillActive) and the caller reads it again when that check fails.
   */
  async get(hash: Buffer, load: () => Promise<Authenticated | undefined>, proof: 'catch-up' | 'statement' = 'catch-up'): Promise<Authenticated | undefined> {
    return this.lookup(hash.toString('base64'), load, proof);
  }

  /**
   * A merchant by id at the version of its row that the caller's own statement read (the wallet's
   * checkout lookup reads it beside the checkout: the wallet's credential is the checkout's client
   * secret, checked against that row). The cached merchant answers only when it is that version;
   * otherwise `load` reads it (cached like a credential's merchant). No catch-up is needed: the
   * version is the merchant as of the caller's statement, every change committed before it included.
   */
  async merchantAt(merchantId: string, version: string, load: () => Promise<Authenticated | undefined>): Promise<MerchantRow | undefined> {
    this.start();
    // ':' never occurs in a base64 hash key
    const key = `merchant:${merchantId}`;
    const hit = this.unexpired(key);
    if (hit && hit.version === version) return hit.merchant;
    return (await this.loadAndKeep(key, load))?.merchant;
  }

  private async lookup(key: string, load: () => Promise<Authenticated | undefined>, proof: 'catch-up' | 'statement'): Promise<Authenticated | undefined> {
    this.start();
    if (this.entries.has(key) && (proof === 'statement' || (await this.caughtUp()))) {
      const hit = this.unexpired(key);
      if (hit) return hit;
    }
    return this.loadAndKeep(key, load);
  }

  private unexpired(key: string): Authenticated | undefined {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.value;
    if (hit) this.entries.delete(key);
    return undefined;
  }

  private async loadAndKeep(key: string, load: () => Promise<Authenticated | undefined>): Promise<Authenticated | undefined> {
    const epoch = this.epoch;
    const value = await load();
    if (value && this.listening && epoch === this.epoch) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, expiresAt: this.now() + CREDENTIAL_TTL_MS });
    }
    return value;
  }

  /**
   * Reads every change announced before this call: a round trip on the listener's connection sent
   * after it. A NOTIFY committed before the request arrived may not have reached this process yet
   * (the listening backend sends it when it is next scheduled; another API answered the revocation
   * meanwhile), but PostgreSQL sends a session its pending notifications before the result of its
   * next query. Concurrent hits share one: a round trip already on the wire may predate them, so
   * they join the next, sent as it returns; at most one is in flight, however busy the API.
   * False when the listener is down (then nothing cached is trusted).
   */
  private caughtUp(): Promise<boolean> {
    if (!this.roundTrip) return this.sendRoundTrip();
    this.nextRoundTrip ??= this.roundTrip.then(() => {
      this.nextRoundTrip = null;
      return this.sendRoundTrip();
    });
    return this.nextRoundTrip;
  }

  private sendRoundTrip(): Promise<boolean> {
    const listener = this.listener;
    if (!listener || !this.listening) return Promise.resolve(false);
    const sent = listener.roundTrip().then(
      () => true,
      () => false,
    );
    this.roundTrip = sent;
    void sent.then(() => {
      if (this.roundTrip === sent) this.roundTrip = null;
    });
    return sent;
  }

  /** Forgets every credential of the merchant (a revocation, a settings change). */
  invalidate(merchantId: string): void {
    this.epoch++;
    for (const [key, entry] of this.entries) if (entry.value.merchant.id === merchantId) this.entries.delete(key);
  }

  private clear(): void {
    this.epoch++;
    this.entries.clear();
  }

  private start(): void {
    if (this.listener || this.closed || this.reconnect) return;
    let listener: CredentialChangeListener | null = null;
    const lost = () => {
      if (!listener || this.listener !== listener) return;
      this.listening = false;
      this.listener = null;
      this.clear();
      if (!this.closed) this.reconnect = setTimeout(() => void (this.reconnect = null), RECONNECT_MS).unref();
    };
    listener = listenForCredentialChanges(this.connection, (merchantId) => this.invalidate(merchantId), lost);
    this.listener = listener;
    listener.ready.then(
      () => {
        if (this.listener === listener) this.listening = true;
      },
      () => undefined,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.reconnect) clearTimeout(this.reconnect);
    const listener = this.listener;
    this.listener = null;
    this.clear();
    await listener?.close();
  }
}

const caches = new WeakMap<Db, CredentialCache>();

/** One cache per database pool (that is, per process and database). */
export function credentialCacheFor(db: Db): CredentialCache {
  let cache = caches.get(db);
  if (!cache) {
    // The pool's own connection settings (knex keeps them parsed, as pg.Client accepts them).
    const created = new CredentialCache(db.client.config.connection as ListenerConnection);
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
