import { ChildService } from '../../support/child-service';
import { freePort } from '../../support/free-port';
import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { currentTotpCode } from '../../../src/identity/secrets';
import { PASSWORD, uniqueEmail } from '../../support/merchant-accounts';
import { acceptOperatorInvitation, inviteOperator, operatorSignInRequest } from '../../support/operators';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false });
});
afterAll(async () => service.stop());

/** Every admin route the app serves (the dashboard's back end), with a sample path. */
const ADMIN_ROUTES: Array<[string, string]> = [
  ['POST', '/admin/v1/merchants'],
  ['GET', '/admin/v1/merchants'],
  ['GET', '/admin/v1/merchants/mer_x'],
  ['PATCH', '/admin/v1/merchants/mer_x/settings'],
  ['GET', '/admin/v1/merchants/mer_x/api_keys'],
  ['POST', '/admin/v1/merchants/mer_x/api_keys'],
  ['DELETE', '/admin/v1/merchants/mer_x/api_keys/key_x'],
  ['GET', '/admin/v1/reviews'],
  ['POST', '/admin/v1/reviews/cpilr_x/approve'],
  ['POST', '/admin/v1/reviews/cpilr_x/decline'],
  ['POST', '/admin/v1/customers/cus_x/unrestrict'],
  ['GET', '/admin/v1/customers/restricted'],
  ['POST', '/admin/v1/charges/ch_x/refund'],
  ['GET', '/admin/v1/charges'],
  ['GET', '/admin/v1/checkouts'],
  ['GET', '/admin/v1/checkouts/chk_x'],
  ['GET', '/admin/v1/checkouts/chk_x/timeline'],
  ['GET', '/admin/v1/events'],
  ['GET', '/admin/v1/events/ev_x'],
  ['POST', '/admin/v1/events/ev_x/resend'],
  ['POST', '/admin/v1/events/replay'],
  ['GET', '/admin/v1/settings_catalog'],
  ['POST', '/admin/v1/sandbox/charges/ch_x/transition'],
  ['GET', '/admin/v1/operators'],
  ['POST', '/admin/v1/operators/invitations'],
  ['PATCH', '/admin/v1/operators/opr_x'],
  ['DELETE', '/admin/v1/operators/opr_x'],
];
const PAGES = ['/dashboard', '/dashboard/reviews', '/dashboard/merchants', '/dashboard/checkouts', '/dashboard/events', '/dashboard/customers', '/dashboard/operators'];

/** One of the operator's people (operator_admin), signed in as themselves: the session's cookie, CSRF token and Set-Cookie header. */
async function signIn(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const email = uniqueEmail('ops');
  const invited = await inviteOperator(service, email, 'operator_admin');
  const secret = await acceptOperatorInvitation(service, invited.body.accept_url);
  const res = await operatorSignInRequest(service, { email, password: PASSWORD, totp_code: currentTotpCode(secret, 1) });
  expect(res.status).toBe(200);
  const setCookie = res.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0]!, csrf: res.body.csrf, setCookie };
}

describe('the dashboard and the admin API refuse without the admin token', () => {
  it.each(ADMIN_ROUTES)('%s %s answers 401 without a token, with a wrong one, and with a forged cookie', async (method, path) => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong-token-0123456789' }, { cookie: 'dashboard_session=eyJuIjoieCIsImUiOjk5OTk5OTk5OTl9.forged' }];
    for (const headers of attempts) {
      const res = await request(service.baseUrl, method, path, { headers, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expect([res.status, res.body]).toEqual([401, { error: expect.any(String), hint: expect.any(String), request_id: expect.any(String) }]);
    }
  });

  it.each(['/ADMIN/V1/merchants', '/Admin/v1/merchants', '/admin/v1', '/admin/v1?x=1', '/ADMIN/V1'])('POST %s with a body that is not JSON answers 401 without a token (the token is checked before the body)', async (path) => {
    const res = await request(service.baseUrl, 'POST', path, { rawBody: '{bad' });
    expect([res.status, res.body]).toEqual([401, { error: 'Admin token not valid.', hint: expect.any(String), request_id: expect.any(String) }]);
  });

  it.each(PAGES)('page %s redirects to the sign-in page without a session', async (page) => {
    const res = await fetch(service.baseUrl + page, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/login');
    expect(await res.text()).not.toContain('app.js');
  });

  it('serves the application script only with a session; the sign-in page is public', async () => {
    expect((await fetch(`${service.baseUrl}/dashboard/assets/app.js`)).status).toBe(401);
    expect((await fetch(`${service.baseUrl}/dashboard/assets/reviews.js`)).status).toBe(401);
    const login = await fetch(`${service.baseUrl}/dashboard/login`);
    expect(login.status).toBe(200);
    expect(login.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(login.headers.get('x-frame-options')).toBe('DENY');
    expect((await request(service.baseUrl, 'POST', '/dashboard/session', { body: { email: 'nobody@example.com', password: 'wrong password 0123', totp_code: '123456' } })).status).toBe(401);
  });

  it('answers an asset that does not exist, or another method than GET, 404 {error, hint}, signed in or not', async () => {
    const { cookie } = await signIn();
    const notFound = { error: 'Not found.', hint: expect.any(String), request_id: expect.any(String) };
    for (const [method, path, headers] of [
      ['GET', '/dashboard/assets/nope.js', { cookie }],
      ['GET', '/dashboard/assets/', { cookie }],
      ['POST', '/dashboard/assets/signin.js', {}],
      ['POST', '/dashboard/assets/app.js', { cookie }],
    ] as const) {
      const res = await request(service.baseUrl, method, path, { headers });
      expect([method, path, res.status, res.body]).toEqual([method, path, 404, notFound]);
    }
    // Unchanged: the application's assets need a session.
    expect((await request(service.baseUrl, 'GET', '/dashboard/assets/nope.js')).status).toBe(401);
  });

  it('serves the pages\' HTML under /dashboard/assets with the pages\' headers too: never framed, strict CSP', async () => {
    const { cookie } = await signIn();
    for (const file of ['app.html', 'app.js', 'signin.js', 'config.js', 'shell.js']) {
      const res = await fetch(`${service.baseUrl}/dashboard/assets/${file}`, { headers: { cookie } });
      expect([file, res.status]).toEqual([file, 200]);
      expect([file, res.headers.get('x-frame-options')]).toEqual([file, 'DENY']);
      expect([file, res.headers.get('content-security-policy')]).toEqual([file, expect.stringContaining("frame-ancestors 'none'")]);
      expect([file, res.headers.get('cache-control')]).toEqual([file, 'no-store']);
    }
  });

  it('signs in to an HttpOnly, SameSite=Strict cookie that opens the pages and the admin API, with a CSRF header for changes', async () => {
    const { cookie, csrf, setCookie } = await signIn();
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    // Secure outside development (tests run with NODE_ENV=test); only local development over plain http://localhost goes without.
    expect(setCookie).toMatch(/; Secure/);
    const page = await fetch(`${service.baseUrl}/dashboard/reviews`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/dashboard/assets/app.js');
    expect((await fetch(`${service.baseUrl}/dashboard/assets/app.js`, { headers: { cookie } })).status).toBe(200);
    expect((await request(service.baseUrl, 'GET', '/admin/v1/merchants', { headers: { cookie } })).status).toBe(200);

    const body = { name: 'Made from the dashboard' };
    const noCsrf = await request(service.baseUrl, 'POST', '/admin/v1/merchants', { headers: { cookie }, body });
    expect(noCsrf.status).toBe(401);
    expect(noCsrf.body.error).toBe('Missing or wrong CSRF token.');
    const wrongCsrf = await request(service.baseUrl, 'POST', '/admin/v1/merchants', { headers: { cookie, 'x-dashboard-csrf': 'x'.repeat(43) }, body });
    expect(wrongCsrf.status).toBe(401);
    const ok = await request(service.baseUrl, 'POST', '/admin/v1/merchants', { headers: { cookie, 'x-dashboard-csrf': csrf }, body });
    expect(ok.status).toBe(201);

    const out = await request(service.baseUrl, 'DELETE', '/dashboard/session', { headers: { cookie, 'x-dashboard-csrf': csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/dashboard_session=;/);
  });
});

describe('signing out revokes the server-side session, for every API process', () => {
  let other: ChildService;
  let otherUrl: string;
  beforeAll(async () => {
    // A second API process on the same database: the real entry point, nothing shared in memory.
    const port = await freePort();
    other = new ChildService('api', { ...service.childEnv, PORT: String(port) });
    await other.start();
    otherUrl = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => other.stop());

  const refused = { error: expect.any(String), hint: expect.any(String), request_id: expect.any(String) };

  it('refuses a copy of the cookie after sign-out, in the process that signed out and in the other', async () => {
    const { cookie, csrf } = await signIn();
    for (const url of [service.ownUrl, otherUrl]) {
      expect([url, (await request(url, 'GET', '/admin/v1/merchants', { headers: { cookie } })).status]).toEqual([url, 200]);
    }
    const out = await request(otherUrl, 'DELETE', '/dashboard/session', { headers: { cookie, 'x-dashboard-csrf': csrf } });
    expect([out.status, out.body]).toEqual([200, { signed_out: true }]);

    for (const url of [service.ownUrl, otherUrl]) {
      for (const [method, path, headers] of [
        ['GET', '/admin/v1/merchants', { cookie }],
        ['POST', '/admin/v1/merchants', { cookie, 'x-dashboard-csrf': csrf }],
        ['GET', '/dashboard/session', { cookie }],
        ['DELETE', '/dashboard/session', { cookie, 'x-dashboard-csrf': csrf }],
        ['GET', '/dashboard/assets/app.js', { cookie }],
      ] as const) {
        const res = await request(url, method, path, { headers, body: method === 'POST' ? { name: 'After sign-out' } : undefined });
        expect([url, method, path, res.status, res.body]).toEqual([url, method, path, 401, refused]);
      }
      const page = await fetch(`${url}/dashboard/reviews`, { headers: { cookie }, redirect: 'manual' });
      expect([url, page.status, page.headers.get('location')]).toEqual([url, 303, '/dashboard/login']);
    }

    // Only that session is revoked: a new sign-in and the bearer token still open the admin API.
    const again = await signIn();
    expect((await request(otherUrl, 'GET', '/admin/v1/merchants', { headers: { cookie: again.cookie } })).status).toBe(200);
    expect((await request(otherUrl, 'GET', '/admin/v1/merchants', { token: service.adminToken })).status).toBe(200);
  });

  it('looks a session up once per call made with its cookie (the server-side session), and never for a bearer-token call', async () => {
    const { cookie } = await signIn();
    const lookups: string[] = [];
    const onQuery = (query: { sql: string }) => {
      if (query.sql.includes('sessions')) lookups.push(query.sql);
    };
    service.deps.db.on('query', onQuery);
    try {
      expect((await request(service.ownUrl, 'GET', '/admin/v1/merchants', { token: service.adminToken })).status).toBe(200);
      expect(lookups).toHaveLength(0);
      expect((await request(service.ownUrl, 'GET', '/admin/v1/merchants', { headers: { cookie } })).status).toBe(200);
      expect(lookups).toHaveLength(1);
    } finally {
      service.deps.db.removeListener('query', onQuery);
    }
  });
});
