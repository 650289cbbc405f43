import type { RequestHandler } from 'express';
import type { AppDeps } from '../app-deps';
import { CoordinatesBody } from '../device-pings/schemas';
import { assertDevicePingsEnabled, presentDevicePing, recordDevicePing } from '../device-pings/service';
import { parseOrThrow } from '../http/validate';
import { findMerchant } from '../storage/merchants';
import { checkoutOf } from './auth';

/**
 * POST /wallet/v1/checkouts/{id}/device_pings: the hosted page's own ping for the checkout's
 * customer. Same service as POST /api/v1/device_pings (30-minute reuse, 404 when disabled),
 * same answer; the checkout's client_secret stands in for the merchant's.
 */
export function postCheckoutDevicePing(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const checkout = checkoutOf(req);
    const merchant = (await findMerchant(deps.db, checkout.merchant_id))!;
    // Same order as the public endpoint: a disabled account answers 404 whatever was sent.
    assertDevicePingsEnabled(merchant);
    const body = parseOrThrow(CoordinatesBody, req.body);
    const result = await recordDevicePing(deps, merchant, checkout.customer_id, body, req.ip ?? null);
    res.status(201).json(presentDevicePing(result));
  };
}
