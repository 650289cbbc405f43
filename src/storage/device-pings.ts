import type { Knex } from 'knex';
import type { Db } from './db';
import { GEO_CHECK_MAX_AGE_MS, type GeoCheckRow } from './geo-checks';

export interface DevicePingRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  latitude: number;
  longitude: number;
  ip_address: string | null;
  /** The geo check answered for this ping (new or reused); null when none could be run. */
  geo_check_id: string | null;
  geo_check_cached: boolean;
  created_at: Date;
}

/** A ping to record, before its geo check is known. */
export type NewDevicePing = Omit<DevicePingRow, 'geo_check_id' | 'geo_check_cached' | 'created_at'>;

/** A geo check evaluated for a ping, to record with it. */
export type NewGeoCheck = Omit<GeoCheckRow, 'merchant_id' | 'customer_id' | 'checked_at'>;

/** What recordDevicePing found and wrote: the ping (when written) and the geo check it was answered with. */
export interface RecordedPing {
  /** Null when the ping was not written: no recent check, and no evaluation was given. */
  pingId: string | null;
  geoCheck: GeoCheckRow | null;
  /** Whether the check is the customer's recent one, reused (not evaluated for this ping). */
  cached: boolean;
}

/**
 * One statement: the customer (the merchant's, and only while `when` holds: a credential's check),
 * their geo check under GEO_CHECK_MAX_AGE_MS old by the database clock (the clock that stamped
 * checked_at), and the ping. A recent check answers the ping (written as cached). Without one, the
 * ping is written only when `evaluation` is given: with the check evaluated (an object), or with
 * none (null: the point is in no country); `evaluation` undefined writes nothing then.
 */
const RECORD_PING = `
WITH customer AS (
  SELECT id FROM customers WHERE merchant_id = :merchantId AND id = :customerId AND :when
), recent AS (
  SELECT g.* FROM geo_checks g JOIN customer ON customer.id = g.customer_id
   WHERE g.merchant_id = :merchantId AND g.checked_at > now() - (:maxAgeMs::float8 * interval '1 millisecond')
   ORDER BY g.checked_at DESC LIMIT 1
), evaluated AS (
  INSERT INTO geo_checks (id, merchant_id, customer_id, passed, municipality, region, country, latitude, longitude)
  SELECT :geoId::text, :merchantId::text, customer.id, :passed::boolean, :municipality::text, :region::text, :country::text, :geoLatitude::float8, :geoLongitude::float8
    FROM customer WHERE :evaluate::boolean AND NOT EXISTS (SELECT 1 FROM recent)
  RETURNING *
), answer AS (
  SELECT * FROM recent UNION ALL SELECT * FROM evaluated
), ping AS (
  INSERT INTO device_pings (id, merchant_id, customer_id, latitude, longitude, ip_address, geo_check_id, geo_check_cached)
  SELECT :pingId::text, :merchantId::text, customer.id, :latitude::float8, :longitude::float8, :ipAddress::text, answer.id, EXISTS (SELECT 1 FROM recent)
    FROM customer LEFT JOIN answer ON true
   WHERE EXISTS (SELECT 1 FROM recent) OR :record::boolean
  RETURNING id, geo_check_cached
)
SELECT ping.id AS ping_id, ping.geo_check_cached AS ping_cached, answer.*
  FROM customer LEFT JOIN ping ON true LEFT JOIN answer ON true`;

/**
 * Records the ping as RECORD_PING says, in one round trip. Undefined when the customer is missing,
 * another merchant's, or `when` failed: nothing is written then.
 */
export async function insertCustomerPing(db: Db, ping: NewDevicePing, options: { evaluation?: NewGeoCheck | null; when?: Knex.Raw } = {}): Promise<RecordedPing | undefined> {
  const { evaluation } = options;
  const result = await db.raw(RECORD_PING, {
    merchantId: ping.merchant_id,
    customerId: ping.customer_id,
    when: options.when ?? db.raw('true'),
    maxAgeMs: GEO_CHECK_MAX_AGE_MS,
    evaluate: !!evaluation,
    geoId: evaluation?.id ?? null,
    passed: evaluation?.passed ?? null,
    municipality: evaluation?.municipality ?? null,
    region: evaluation?.region ?? null,
    country: evaluation?.country ?? null,
    geoLatitude: evaluation?.latitude ?? null,
    geoLongitude: evaluation?.longitude ?? null,
    record: evaluation !== undefined,
    pingId: ping.id,
    latitude: ping.latitude,
    longitude: ping.longitude,
    ipAddress: ping.ip_address,
  });
  const row = result.rows[0] as (GeoCheckRow & { ping_id: string | null; ping_cached: boolean | null }) | undefined;
  if (!row) return undefined;
  const { ping_id: pingId, ping_cached: cached, ...geoCheck } = row;
  return { pingId, geoCheck: geoCheck.id === null ? null : geoCheck, cached: cached ?? false };
}
