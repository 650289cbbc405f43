import type { Request, Response } from 'express';
import { DashboardSessions } from '../../src/dashboard/session';

/** A response that records the cookie it is given. */
function fakeResponse() {
  const cookies: Array<{ name: string; value: string; options: Record<string, unknown> }> = [];
  const res = { cookie: (name: string, value: string, options: Record<string, unknown>) => cookies.push({ name, value, options }) } as unknown as Response;
  return { res, cookies };
}
const requestWith = (cookie: string, method = 'GET', headers: Record<string, string> = {}) =>
  ({ method, headers: { cookie }, header: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;

describe('dashboard sessions', () => {
  it('sets Secure outside development and test, HttpOnly and SameSite=Strict always', () => {
    for (const secure of [true, false]) {
      const { res, cookies } = fakeResponse();
      new DashboardSessions('token-0123456789abcdef', secure).start(res, 'Grace');
      expect(cookies[0]!.options).toMatchObject({ httpOnly: true, sameSite: 'strict', secure });
    }
  });

  it('reads back a signed session; a tampered or foreign-key cookie is no session', () => {
    const sessions = new DashboardSessions('token-0123456789abcdef', true);
    const { res, cookies } = fakeResponse();
    const started = sessions.start(res, 'Grace');
    const cookie = `dashboard_session=${cookies[0]!.value}`;
    expect(sessions.read(requestWith(cookie))).toEqual({ name: 'Grace', csrf: started.csrf });
    const [payload, signature] = cookies[0]!.value.split('.');
    const forged = Buffer.from(JSON.stringify({ n: 'Mallory', e: 9_999_999_999 })).toString('base64url');
    expect(sessions.read(requestWith(`dashboard_session=${forged}.${signature}`))).toBeNull();
    expect(new DashboardSessions('another-token-0123456789', true).read(requestWith(cookie))).toBeNull();
    expect(payload).toBeDefined();
  });

  it('requires the CSRF header on state-changing methods only', () => {
    const sessions = new DashboardSessions('token-0123456789abcdef', true);
    const { res, cookies } = fakeResponse();
    const { csrf } = sessions.start(res, 'Grace');
    const cookie = `dashboard_session=${cookies[0]!.value}`;
    const session = sessions.read(requestWith(cookie))!;
    expect(sessions.csrfOk(requestWith(cookie, 'GET'), session)).toBe(true);
    expect(sessions.csrfOk(requestWith(cookie, 'POST'), session)).toBe(false);
    expect(sessions.csrfOk(requestWith(cookie, 'POST', { 'x-dashboard-csrf': csrf }), session)).toBe(true);
  });
});
