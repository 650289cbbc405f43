import type { Db } from './db';

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

export async function insertDevicePing(db: Db, row: Omit<DevicePingRow, 'created_at'>): Promise<DevicePingRow> {
  const [inserted] = await db<DevicePingRow>('device_pings').insert(row).returning('*');
  return inserted as DevicePingRow;
}
