import express, { Router } from 'express';
import { createApp } from '../../../src/app';
import type { AddressInfo } from 'node:net';
import { errorHandler } from '../../../src/http/error-handler';
import { assertEveryRouteDeclared, declaredRoutes, merchantCredential, operator, publicRoute, route } from '../../../src/identity/route-access';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { attempt, CARD, createCheckout, getCharge, openShop, waitFor } from '../../support/fixtures';
import { request } from '../../support/http';
import { takeAnswerMismatches } from '../../support/openapi-answers';
import { asOperator, operator as signedInOperator } from '../../support/operators';
import { listRoutes } from '../../support/routes';

/**
 * Every route declares its access where it is registered, and the check runs on the route Express
 * matched: no spelling of a path reaches a handler past it.
 */

let service: Service;
useServiceWithReceiver((env) => ({ service } = env));

describe('every registered route of the app', () => {
  it('declares its access (walked through every mounted router); admin routes an operator permission, merchant dashboard routes a session', () => {
    const routes = declaredRoutes(createApp(service.deps));
    expect(routes.length).toBeGreaterThan(100);
    expect(routes.filter((r) => r.access === undefined)).toEqual([]);
    // The walk sees what the OpenAPI coverage test sees, and more (the static mounts).
    expect(routes.filter((r) => r.method !== 'USE').length).toBeGreaterThanOrEqual(listRoutes(createApp(service.deps)).length);
    expect(routes.filter((r) => r.path.startsWith('/admin/v1/') && r.access?.kind !== 'operator')).toEqual([]);
    const dashboard = routes.filter((r) => r.path.startsWith('/merchant/v1/') && !['/merchant/v1/session', '/merchant/v1/invitations/accept', '/merchant/v1/invitations/totp'].includes(r.path) && !r.path.startsWith('/merchant/v1/password-resets'));
    expect(dashboard.filter((r) => r.access?.kind !== 'merchant' && r.access?.kind !== 'merchant_session' && !(r.path === '/merchant/v1/session' && r.method === 'DELETE'))).toEqual([]);
    expect(routes.filter((r) => r.access?.kind === 'public' && !r.access.reason)).toEqual([]);
  });

  it('an app with a route registered without a declaration does not start', () => {
    const app = express();
    const router = Router();
    route(router, 'get', '/declared', publicRoute('a test route'), (_req, res) => res.end());
    router.post('/undeclared', (_req, res) => res.end());
    app.use('/nested', Router().use('/deeper', router));
    expect(declaredRoutes(app).map((r) => [r.method, r.path, r.access?.kind])).toEqual([
      ['GET', '/nested/deeper/declared', 'public'],
      ['POST', '/nested/deeper/undeclared', undefined],
    ]);
    expect(() => assertEveryRouteDeclared(app)).toThrow('POST /nested/deeper/undeclared');
  });
});

describe('a declared check without the guard in front of its mount', () => {
  it('refuses: an operator route no admin guard authenticated is 401, a credential route authenticates on its own', async () => {
    const app = express();
    const router = Router();
    let reached = 0;
    const handler = (_req: express.Request, res: express.Response) => {
      reached += 1;
      res.json({ reached: true });
    };
    route(router, 'get', '/operator-only', operator('read'), handler);
    route(router, 'get', '/keyed', merchantCredential(service.deps.db, 'api_key'), handler);
    app.use(router);
    app.use(errorHandler(service.deps.logger));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect((await request(base, 'GET', '/operator-only', { token: service.adminToken })).status).toBe(401);
      expect((await request(base, 'GET', '/keyed', { token: 'key_not_a_key' })).status).toBe(422);
      expect(reached).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("an admin route's check, on the route Express matched", () => {
  it("no spelling of a path (letter case, trailing slash, doubled slashes, percent-encoding) refunds past a viewer's role", async () => {
    const viewer = await signedInOperator(service, 'operator_viewer');
    const shop = await openShop(service);
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2500 });
    const chargeId = (await attempt(service, checkout, { payment_method: CARD() })).body.charge.id as string;
    await waitFor(async () => (await getCharge(service, shop, chargeId)).body.status === 'succeeded');
    const spellings = [
      `/admin/v1/charges/${chargeId}/refund`,
      `/admin/v1/CHARGES/${chargeId}/REFUND`,
      `/admin/v1/Charges/${chargeId}/refund/`,
      `/admin/v1//charges/${chargeId}/refund`,
      `/admin/v1/charges//${chargeId}/refund`,
      `/admin/v1/%63harges/${chargeId}/refund`,
      `/admin/v1/charges/${chargeId}/%72efund`,
      `/ADMIN/V1/charges/${chargeId}/refund`,
      `/admin/v1/charges/${encodeURIComponent(chargeId)}%2Frefund`,
    ];
    for (const path of spellings) {
      const res = await asOperator(service, viewer, 'POST', path);
      expect([path, [403, 404].includes(res.status), res.body.status]).toEqual([path, true, undefined]);
    }
    // The route's own spelling and the ones Express matches to it meet the check: 403 with the role's hint.
    for (const path of spellings.slice(0, 3)) expect([path, (await asOperator(service, viewer, 'POST', path)).status]).toEqual([path, 403]);
    expect((await getCharge(service, shop, chargeId)).body.status).toBe('succeeded');
    // These spellings are not the document's paths on purpose: their refusals are not checked against it.
    takeAnswerMismatches();
  });

  it('the admin token passes every declared permission; no credential is 401 before any route', async () => {
    const res = await request(service.baseUrl, 'GET', '/admin/v1/OPERATORS/', { token: service.adminToken });
    expect(res.status).toBe(200);
    expect((await request(service.baseUrl, 'GET', '/admin/v1/operators')).status).toBe(401);
    expect((await request(service.baseUrl, 'POST', '/admin/v1/no-such-route')).status).toBe(401);
  });
});
