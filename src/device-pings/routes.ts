import cors from 'cors';
import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { checkedInStatement, merchantOf } from '../http/auth';
import { customerNotFound } from '../customers/service';
import { idempotent } from '../http/idempotency';
import { parseOrThrow } from '../http/validate';
import { DevicePingBody, LatestGeoCheckQuery } from './schemas';
import { assertDevicePingsEnabled, findLatestGeoCheck, presentDevicePing, presentGeoCheck, recordDevicePing } from './service';
import { access, merchantCredential, publicRoute, route } from '../identity';

/**
 * POST is called from the customer's own browser with the browser-safe client secret, so it
 * alone answers any origin (preflight included); the credential is a header, never a cookie.
 * Permissive as the contract says: a preflight may ask for any request header (the front end's
 * own X-Request-Id, trace context), which is echoed back, since no cookie ever rides along.
 * Everything else under /api/v1 stays server-side and sends no CORS headers.
 */
const browserCors = cors({
  origin: '*',
  methods: ['POST', 'OPTIONS'],
  maxAge: 600,
});

/** The contract gives latest_geo_check its own wording for a bad API key (still 422, never 401). */
const LATEST_GEO_CHECK_AUTH_MESSAGE = 'Invalid API key.';

export function devicePingRoutes(deps: AppDeps): Router {
  const { db } = deps;
  const router = Router();

  route(router, 'options', '/', publicRoute('the browser\'s CORS preflight'), browserCors);
  // CORS runs before authentication so a browser can read the 422 too. The ping's first statement
  // also checks the credential (checkedInStatement): one database round trip for a recent check.
  const clientSecret = merchantCredential(db, 'client_secret', undefined, 'statement');
  route(router, 'post', '/', access({ kind: 'client_secret' }, browserCors, ...clientSecret.guards), idempotent(deps), async (req, res) => {
    let customerId = '';
    // Inside the check, so a refusal stands only for a credential proven valid.
    const result = await checkedInStatement(db, req, (merchant, stillActive) => {
      // A disabled account learns that first, whatever it sent.
      assertDevicePingsEnabled(merchant);
      const body = parseOrThrow(DevicePingBody, req.body);
      customerId = body.customer_id;
      return recordDevicePing(deps, merchant, body.customer_id, body, req.ip ?? null, stillActive);
    });
    // Another merchant's customer is reported exactly like a missing one.
    if (!result) throw customerNotFound(customerId);
    res.status(201).json(presentDevicePing(result));
  });

  route(router, 'get', '/latest_geo_check', merchantCredential(db, 'api_key', LATEST_GEO_CHECK_AUTH_MESSAGE), async (req, res) => {
    const query = parseOrThrow(LatestGeoCheckQuery, req.query, 'Query');
    const check = await findLatestGeoCheck(db, merchantOf(req), query.customer_id);
    // The contract answers the JSON literal null when no check has been performed.
    res.json(check ? presentGeoCheck(check) : null);
  });

  return router;
}
