import { z } from 'zod';
import { ApiKeyAuth, ClientSecretAuth, errorResponses, EXAMPLE_REQUEST_ID, jsonContent, registry } from '../http/openapi-registry';

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

export const LatestGeoCheckQuery = z.object({ customer_id: z.string().min(1).max(64).openapi({ example: 'cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw' }) });

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
    // A union with null, not .nullable(): on a registered schema that documents an object that is never null.
    geo_check: z
      .union([
        GeoCheckResponse.extend({
          cached: z.boolean().openapi({ description: 'True when a check under 30 minutes old was reused instead of evaluating these coordinates.' }),
        }),
        z.null(),
      ])
      .openapi({ description: 'Null when no check could be run (the point is in no country, e.g. open sea).' }),
    ip_check: z.object({}).nullable().openapi({ description: 'Currently always null.' }),
  }),
);

// Examples of the device-ping operations, as the service answers them.
const CUSTOMER_ID = 'cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw';
const exampleGeoCheck = {
  id: 'gc_AzS1eD1Ue9xsLXiVx9YXHyqt', passed: true, municipality: 'Albany', region: 'NY', country: 'USA', latitude: 42.6526, longitude: -73.7562, checked_at: '2026-11-22T10:15:30.000Z',
};

registry.registerPath({
  method: 'post',
  path: '/api/v1/device_pings',
  summary: 'Report the customer device\'s location (browser-safe, client secret)',
  security: [{ [ClientSecretAuth.name]: [] }],
  request: { body: jsonContent(DevicePingBody, { albany: { summary: 'The device is in Albany, NY', value: { latitude: 42.6526, longitude: -73.7562, customer_id: CUSTOMER_ID } } }) },
  responses: {
    201: {
      description: 'Recorded',
      ...jsonContent(DevicePingResponse, {
        checked: { summary: 'A new geo check', value: { id: 'dp_jMD8UKppqwoNEQwmSoLcQRbQ', geo_check: { ...exampleGeoCheck, cached: false }, ip_check: null } },
        cached: { summary: 'A check under 30 minutes old, reused', value: { id: 'dp_CmaiZkcfJEiGH6E1cnRKQNor', geo_check: { ...exampleGeoCheck, cached: true }, ip_check: null } },
        no_check: { summary: 'No check could be run (open sea)', value: { id: 'dp_Qx1ZXZubyZxVnpRS0UqeiSjX', geo_check: null, ip_check: null } },
      }),
    },
    ...errorResponses(
      { 400: 'Body is not JSON.', 404: 'Device pings are disabled for this account.' },
      {
        404: {
          disabled: {
            summary: 'Device pings are off for this account',
            value: { error: 'Device pings are disabled for this account.', hint: 'Device pings are disabled for this account; contact the service operator to enable them.', request_id: EXAMPLE_REQUEST_ID },
          },
        },
        422: { invalid_client_secret: { summary: 'Unknown client secret', value: { error: 'Client secret not found.', request_id: EXAMPLE_REQUEST_ID } } },
      },
    ),
  },
});
registry.registerPath({
  method: 'get',
  path: '/api/v1/device_pings/latest_geo_check',
  summary: 'The customer\'s latest geo check, or null when none has been performed',
  security: [{ [ApiKeyAuth.name]: [] }],
  request: { query: LatestGeoCheckQuery },
  responses: {
    200: {
      description: 'The latest geo check, or the JSON literal null',
      ...jsonContent(z.union([GeoCheckResponse, z.null()]), {
        latest: { summary: 'The latest check', value: exampleGeoCheck },
        none: { summary: 'No check performed yet', value: null },
      }),
    },
    // This operation's wording for a bad API key differs from the other operations' (the contract allows it).
    ...errorResponses({}, { 422: { invalid_api_key: { summary: 'Unknown or revoked API key', value: { error: 'Invalid API key.', request_id: EXAMPLE_REQUEST_ID } } } }),
  },
});
