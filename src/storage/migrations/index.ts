import type { Knex } from 'knex';
import * as m001 from './001_merchants_and_customers';
import * as m002 from './002_checkouts_and_charges';
import * as m003 from './003_events';
import * as m004 from './004_identity_and_location';
import * as m005 from './005_money_safety';
import * as m006 from './006_production_posture';
import * as m007 from './007_subscriptions';
import * as m008 from './008_idempotency_and_evidence';
import * as m009 from './009_expiry_sweep';
import * as m010 from './010_hold_released';
import * as m011 from './011_product_lookup';
import * as m012 from './012_dashboard_session_revocations';
import * as m013 from './013_admin_token_failures';
import * as m014 from './014_velocity_by_number';
import * as m015 from './015_delivery_series_and_lease';
import * as m016 from './016_reconciler';
import * as m017 from './017_merchant_accounts';
import * as m018 from './018_stripe';
import * as m019 from './019_refund_requester';
import * as m020 from './020_operator_accounts';
import * as m022 from './022_outgoing_mails';
import * as m023 from './023_identity_tables';
import * as m024 from './024_authenticator_recovery';
import * as m025 from './025_audit_addresses_and_route_limits';
import * as m028 from './028_invitation_revocation';
import * as m030 from './030_worker_heartbeats';
import * as m031 from './031_attempt_slot_owner';
import * as m032 from './032_request_fences';

type Migration = { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> };

/**
 * Migrations are listed here, not discovered on disk, so the same list runs from TypeScript
 * sources (tests, tsx) and from the compiled build alike. Append only.
 */
const MIGRATIONS: Array<[string, Migration]> = [
  ['001_merchants_and_customers', m001],
  ['002_checkouts_and_charges', m002],
  ['003_events', m003],
  ['004_identity_and_location', m004],
  ['005_money_safety', m005],
  ['006_production_posture', m006],
  ['007_subscriptions', m007],
  ['008_idempotency_and_evidence', m008],
  ['009_expiry_sweep', m009],
  ['010_hold_released', m010],
  ['011_product_lookup', m011],
  ['012_dashboard_session_revocations', m012],
  ['013_admin_token_failures', m013],
  ['014_velocity_by_number', m014],
  ['015_delivery_series_and_lease', m015],
  ['016_reconciler', m016],
  ['017_merchant_accounts', m017],
  ['018_stripe', m018],
  ['019_refund_requester', m019],
  ['020_operator_accounts', m020],
  ['022_outgoing_mails', m022],
  ['023_identity_tables', m023],
  ['024_authenticator_recovery', m024],
  ['025_audit_addresses_and_route_limits', m025],
  ['028_invitation_revocation', m028],
  ['030_worker_heartbeats', m030],
  ['031_attempt_slot_owner', m031],
  ['032_request_fences', m032],
];

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};
