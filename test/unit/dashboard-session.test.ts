import type { Request, Response } from 'express';
import { DashboardSessions, type SessionRevocations } from '../../src/dashboard/session';

/** A response that records the cookie it is given. */
function fakeResponse() {
  const cookies: Array<{ name: string; value: string; options: Record<string, unknown> }> = [];
  const res = { cookie: (name: string, value: string, options: Record<string, unknown>) => cookies.push({ name, value, options }) } as unknown as Response;
  return { res, cookies };
}
const requestWith = (cookie: string, method = 'GET', headers: Record<string, string> = {}) =>
  ({ method, headers: { cookie }, header: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;

/** Revocations in memory, as PostgreSQL keeps them for every API process (test/http/admin/dashboard-auth.test.ts). */
function memoryRevocations(): SessionRevocations & { revoked: Map<string, Date> } {
  const revoked = new Map<string, Date>();
  return { revoked, isRevoked: async (id) => revoked.has(id), revoke: async (id, expiresAt) => void revoked.set(id, expiresAt) };
}
const sessionsWith = (token: string, secure = true) => new DashboardSessions(token, secure, memoryRevocations());

describe('dashboard sessions', () => {
  it('sets Secure outside development and test, HttpOnly and SameSite=Strict always', () => {
    for (const secure of [true, false]) {
      const { res, cookies } = fakeResponse();
      sessionsWith('token-0123456789abcdef', secure).start(res, 'Grace');
      expect(cookies[0]!.options).toMatchObject({ httpOnly: true, sameSite: 'strict', secure });
    }
  });

  it('reads back a signed session; a tampered or foreign-key cookie is no session', async () => {
    const sessions = sessionsWith('token-0123456789abcdef');
    const { res, cookies } = fakeResponse();
    const started = sessions.start(res, 'Grace');
    const cookie = `dashboard_session=${cookies[0]!.value}`;
    expect(await sessions.read(requestWith(cookie))).toEqual({ name: 'Grace', csrf: started.csrf });
    const [payload, signature] = cookies[0]!.value.split('.');
    const forged = Buffer.from(JSON.stringify({ n: 'Mallory', e: 9_999_999_999 })).toString('base64url');
    expect(await sessions.read(requestWith(`dashboard_session=${forged}.${signature}`))).toBeNull();
    expect(await sessionsWith('another-token-0123456789').read(requestWith(cookie))).toBeNull();
    expect(payload).toBeDefined();
  });

  it('requires the CSRF header on state-changing methods only', async () => {
    const sessions = sessionsWith('token-0123456789abcdef');
    const { res, cookies } = fakeResponse();
    const { csrf } = sessions.start(res, 'Grace');
    const cookie = `dashboard_session=${cookies[0]!.value}`;
    const session = (await sessions.read(requestWith(cookie)))!;
    expect(sessions.csrfOk(requestWith(cookie, 'GET'), session)).toBe(true);
    expect(sessions.csrfOk(requestWith(cookie, 'POST'), session)).toBe(false);
    expect(sessions.csrfOk(requestWith(cookie, 'POST', { 'x-dashboard-csrf': csrf }), session)).toBe(true);
  });

  it('signs out by revoking the session until its cookie expires: the same cookie is no session afterwards', async () => {
    const revocations = memoryRevocations();
    const sessions = new DashboardSessions('token-0123456789abcdef', true, revocations);
    const { res, cookies } = fakeResponse();
    const { csrf } = sessions.start(res, 'Grace');
    const cookie = `dashboard_session=${cookies[0]!.value}`;
    const cleared: string[] = [];
    const out = { clearCookie: (name: string) => cleared.push(name) } as unknown as Response;
    expect(await sessions.end(requestWith(cookie, 'DELETE'), out)).toBe(false); // no CSRF header: nothing revoked
    expect(await sessions.end(requestWith(cookie, 'DELETE', { 'x-dashboard-csrf': csrf }), out)).toBe(true);
    expect(cleared).toEqual(['dashboard_session']);
    const expiresAt = [...revocations.revoked.values()][0]!;
    expect(Math.abs(expiresAt.getTime() - (Date.now() + 8 * 3600_000))).toBeLessThan(5_000);
    expect(await sessions.read(requestWith(cookie))).toBeNull();
    expect(await sessions.end(requestWith(cookie, 'DELETE', { 'x-dashboard-csrf': csrf }), out)).toBe(false);
    // Another session of the same reviewer is not affected.
    const again = fakeResponse();
    sessions.start(again.res, 'Grace');
    expect(await sessions.read(requestWith(`dashboard_session=${again.cookies[0]!.value}`))).toMatchObject({ name: 'Grace' });
  });
});
