import { announceCredentialsChanged } from './credential-changes';
import { runPrepared, type Db } from './db';
import { withDefaultSettings, type MerchantSettings } from '../domain/settings';

export interface MerchantRow {
  id: string;
  name: string;
  environment: 'sandbox' | 'production';
  settings: MerchantSettings;
  webhook_signing_secret_sealed: string;
  /** Set by a rotation: still signed with until the expiry, so receivers can switch without a gap. */
  previous_webhook_signing_secret_sealed: string | null;
  previous_webhook_signing_secret_expires_at: Date | null;
  /** The Stripe connector's credentials, sealed; the key's last four is all that is shown of it. */
  stripe_secret_key_sealed: string | null;
  stripe_secret_key_last4: string | null;
  stripe_webhook_secret_sealed: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertMerchant(
  db: Db,
  row: Omit<MerchantRow, 'created_at' | 'updated_at' | 'previous_webhook_signing_secret_sealed' | 'previous_webhook_signing_secret_expires_at' | keyof StripeCredentialColumns> &
    Partial<StripeCredentialColumns>,
): Promise<MerchantRow> {
  const [inserted] = await db<MerchantRow>('merchants')
    .insert({ ...row, settings: JSON.stringify(row.settings) as unknown as MerchantSettings })
    .returning('*');
  return inserted as MerchantRow;
}

/** Settings added after a merchant was onboarded read as their defaults. */
export function withDefaults(row: MerchantRow | undefined): MerchantRow | undefined {
  return row && { ...row, settings: withDefaultSettings(row.settings, row.environment) };
}

/** `lock`: FOR UPDATE, inside a transaction, for a read-modify-write of the merchant row. */
export async function findMerchant(db: Db, id: string, lock = false): Promise<MerchantRow | undefined> {
  if (lock) return withDefaults(await db<MerchantRow>('merchants').where({ id }).first().forUpdate());
  return withDefaults((await runPrepared<MerchantRow>(db, 'SELECT * FROM merchants WHERE id = $1', [id]))[0]);
}

/** A merchant row and its version (xmin: any change to the row gives it another), read together. */
export interface MerchantAtVersion {
  merchant: MerchantRow;
  version: string;
}

/** The merchant and its row's version, read together. */
export async function findMerchantWithVersion(db: Db, id: string): Promise<MerchantAtVersion | undefined> {
  const row = await db('merchants').where({ id }).first('*', db.raw('xmin::text as row_version'));
  if (!row) return undefined;
  const { row_version: version, ...merchant } = row as MerchantRow & { row_version: string };
  return { merchant: withDefaults(merchant)!, version };
}

/** The names of merchants by id, for lists that span merchants (the operator's audit log). Not merchant-scoped: the operator reads every merchant. */
export async function findMerchantNamesByIdsUnscoped(db: Db, ids: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)];
  const rows: Array<Pick<MerchantRow, 'id' | 'name'>> = wanted.length ? await db<MerchantRow>('merchants').whereIn('id', wanted).select('id', 'name') : [];
  return new Map(rows.map((row) => [row.id, row.name]));
}

export type StripeCredentialColumns = Pick<MerchantRow, 'stripe_secret_key_sealed' | 'stripe_secret_key_last4' | 'stripe_webhook_secret_sealed'>;

/** The settings and, when given, replaced Stripe credentials (only the columns given change). */
export async function updateMerchantSettings(db: Db, id: string, settings: MerchantSettings, stripe: Partial<StripeCredentialColumns> = {}): Promise<MerchantRow | undefined> {
  const [row] = await db<MerchantRow>('merchants')
    .where({ id })
    .update({ settings: JSON.stringify(settings) as unknown as MerchantSettings, ...stripe, updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  // Authentication caches the merchant row with its credentials: it must see the new settings.
  if (row) await announceCredentialsChanged(db, id);
  return withDefaults(row as MerchantRow | undefined);
}

/** Makes `sealed` the current signing secret and keeps the one it replaces valid until `previousExpiresAt`. */
/**
 * previous <- current <- new. Unless `force`, only while no earlier roll's overlap runs (checked
 * in the UPDATE itself, so two rolls at once cannot both pass): the previous secret is the one the
 * merchant may still have deployed. Undefined when refused (or no such merchant).
 */
export async function rotateSigningSecret(db: Db, id: string, sealed: string, previousExpiresAt: Date, force = false): Promise<MerchantRow | undefined> {
  const [row] = await db<MerchantRow>('merchants')
    .where({ id })
    .modify((q) => {
      if (!force) q.where((w) => w.whereNull('previous_webhook_signing_secret_expires_at').orWhere('previous_webhook_signing_secret_expires_at', '<=', db.fn.now()));
    })
    .update({
      previous_webhook_signing_secret_sealed: db.ref('webhook_signing_secret_sealed') as unknown as string,
      previous_webhook_signing_secret_expires_at: previousExpiresAt,
      webhook_signing_secret_sealed: sealed,
      updated_at: db.fn.now() as unknown as Date,
    })
    .returning('*');
  if (row) await announceCredentialsChanged(db, id);
  return row as MerchantRow | undefined;
}
