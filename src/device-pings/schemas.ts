import { z } from 'zod';
import { ApiKeyAuth, ClientSecretAuth, errorResponses, registry } from '../http/openapi-registry';

/** WGS 84 ranges: anything outside is not a place on Earth. */
const latitude = z.number().min(-90).max(90);
const longitude = z.number().min(-180).max(180);

/** What the hosted wallet sends for its checkout's customer (the customer comes from the checkout). */
export const CoordinatesBody = z.object({ latitude, longitude }).strict();
export type CoordinatesBody = z.infer<typeof CoordinatesBody>;

export const DevicePingBody = registry.register(
  'DevicePingCreate',
  z.object({ latitude, longitude, customer_id: z.string().min(1).max(64) }).strict(),
);
export type DevicePingBody = z.infer<typeof DevicePingBody>;

export const LatestGeoCheckQuery = z.object({ customer_id: z.string().min(1).max(64) });

export const GeoCheckResponse = registry.register(
  'GeoCheck',
  z.object({
    id: z.string().openapi({ example: 'gc_9Tq1...' }),
    passed: z.boolean().openapi({ description: 'Whether the location is in one of the account\'s supported US states.' }),
    municipality: z.string().nullable(),
    region: z.string().openapi({ description: 'US state code in the USA; elsewhere the first-level division.' }),
    country: z.string().openapi({ description: 'ISO 3166-1 alpha-3.' }),
    latitude: z.number(),
    longitude: z.number(),
    checked_at: z.string().datetime(),
  }),
);

export const DevicePingResponse = registry.register(
  'DevicePing',
  z.object({
    id: z.string().openapi({ example: 'dp_3Hx8...' }),
    geo_check: GeoCheckResponse.extend({
      cached: z.boolean().openapi({ description: 'True when a check under 30 minutes old was reused instead of evaluating these coordinates.' }),
    })
      .nullable()
      .openapi({ description: 'Null when no check could be run (the point is in no country, e.g. open sea).' }),
    ip_check: z.object({}).nullable().openapi({ description: 'Currently always null.' }),
  }),
);

registry.registerPath({
  method: 'post',
  path: '/api/v1/device_pings',
  summary: 'Report the customer device\'s location (browser-safe, client secret)',
  security: [{ [ClientSecretAuth.name]: [] }],
  request: { body: { content: { 'application/json': { schema: DevicePingBody } } } },
  responses: {
    201: { description: 'Recorded', content: { 'application/json': { schema: DevicePingResponse } } },
    ...errorResponses({ 400: 'Body is not JSON.', 404: 'Device pings are disabled for this account.' }),
  },
});
registry.registerPath({
  method: 'get',
  path: '/api/v1/device_pings/latest_geo_check',
  summary: 'The customer\'s latest geo check, or null when none has been performed',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: { query: LatestGeoCheckQuery },
  responses: {
    200: { description: 'The latest geo check, or the JSON literal null', content: { 'application/json': { schema: GeoCheckResponse.nullable() } } },
    ...errorResponses(),
  },
});
