import type { Knex } from 'knex';
import type { AppDeps } from '../app-deps';
import { newId } from '../domain/ids';
import { reverseGeocode, type GeoPlace } from '../geo';
import { FeatureDisabledError, NotFoundError } from '../http/errors';
import { findCustomer } from '../storage/customers';
import type { Db } from '../storage/db';
import { insertCustomerPing } from '../storage/device-pings';
import { latestGeoCheck, lockCustomerGeoChecks, type GeoCheckRow } from '../storage/geo-checks';
import type { MerchantRow } from '../storage/merchants';
import type { CoordinatesBody } from './schemas';

/** The contract's 404 when the operator turned device pings off for the account. */
export function assertDevicePingsEnabled(merchant: MerchantRow): void {
  if (!merchant.settings.device_pings_enabled) {
    throw new FeatureDisabledError(
      'Device pings are disabled for this account.',
      'Device pings are disabled for this account; contact the service operator to enable them.',
    );
  }
}

/** A geo check passes only inside the USA, in one of the account's supported states (DC counts as one). */
export function geoCheckPasses(place: GeoPlace, supportedRegions: readonly string[]): boolean {
  return place.country === 'USA' && supportedRegions.includes(place.region);
}

export interface DevicePingResult {
  id: string;
  geoCheck: GeoCheckRow | null;
  cached: boolean;
}

/**
 * Records one device ping for a customer of the merchant and answers its geo check: the
 * customer's check under 30 minutes old when there is one (the new coordinates are recorded
 * but not evaluated, as the contract says), else a fresh evaluation, or none when the point is
 * in no country. Used by the public endpoint and by the hosted wallet alike. Undefined when the
 * customer is missing or another merchant's, or `when` (a credential's check) failed: nothing was
 * written.
 *
 * A ping that finds a recent check is one statement: the customer, `when`, the check and the
 * ping's INSERT. The reuse holds for pings that arrive together too: the evaluation runs under a
 * per-customer lock and looks for a recent check again once it holds it, so one of them evaluates
 * and the others are answered with that check, cached.
 */
export async function recordDevicePing(
  deps: Pick<AppDeps, 'db' | 'logger'>,
  merchant: MerchantRow,
  customerId: string,
  coordinates: CoordinatesBody,
  ipAddress: string | null,
  when?: Knex.Raw,
): Promise<DevicePingResult | undefined> {
  assertDevicePingsEnabled(merchant);
  const { db } = deps;
  const ping = () => ({ id: newId('devicePing'), merchant_id: merchant.id, customer_id: customerId, latitude: coordinates.latitude, longitude: coordinates.longitude, ip_address: ipAddress });
  const reused = await insertCustomerPing(db, ping(), { when });
  if (!reused) return undefined;
  if (reused.pingId) return { id: reused.pingId, geoCheck: reused.geoCheck, cached: true };

  // Offline and CPU-only (microseconds once loaded), so it runs before the transaction opens.
  const place = reverseGeocode(coordinates.latitude, coordinates.longitude);
  const evaluation = place && {
    id: newId('geoCheck'),
    passed: geoCheckPasses(place, merchant.settings.supported_regions),
    municipality: place.municipality,
    region: place.region,
    country: place.country,
    latitude: coordinates.latitude,
    longitude: coordinates.longitude,
  };
  const recorded = await db.transaction(async (trx) => {
    await lockCustomerGeoChecks(trx, customerId);
    // A check evaluated meanwhile (by a ping that held the lock) answers this one, cached.
    return insertCustomerPing(trx, ping(), { evaluation });
  });
  if (!recorded?.pingId) throw new Error(`customer ${customerId} went away while a ping was recorded`);
  const result = { id: recorded.pingId, geoCheck: recorded.geoCheck, cached: recorded.cached };
  // Identifiers and the verdict only: coordinates are personal data and stay out of the logs.
  if (!result.cached) deps.logger.debug({ device_ping_id: result.id, geo_check_id: result.geoCheck?.id ?? null, passed: result.geoCheck?.passed ?? null }, 'geo check evaluated');
  return result;
}

export async function findLatestGeoCheck(db: Db, merchant: MerchantRow, customerId: string): Promise<GeoCheckRow | null> {
  const customer = await findCustomer(db, merchant.id, customerId);
  if (!customer) throw new NotFoundError('Customer not found.', `No customer ${customerId} exists for this business.`);
  return (await latestGeoCheck(db, merchant.id, customer.id)) ?? null;
}

export function presentGeoCheck(row: GeoCheckRow) {
  return {
    id: row.id,
    passed: row.passed,
    municipality: row.municipality,
    region: row.region,
    country: row.country,
    latitude: row.latitude,
    longitude: row.longitude,
    checked_at: row.checked_at.toISOString(),
  };
}

export function presentDevicePing(result: DevicePingResult) {
  return {
    id: result.id,
    geo_check: result.geoCheck ? { ...presentGeoCheck(result.geoCheck), cached: result.cached } : null,
    // The contract fixes no IP check yet; the key is always present and null.
    ip_check: null,
  };
}
