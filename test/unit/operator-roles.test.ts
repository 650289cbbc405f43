import { OPERATOR_PERMISSIONS, OPERATOR_ROLES, operatorRoleMay, operatorRolesWith } from '../../src/identity/operator-roles';
import { openApiDocument } from '../../src/openapi';
import { ADMIN_ROUTE_PERMISSIONS, adminRoutePermission } from '../../src/operator-accounts/admin-permissions';
import { currentTotpCode, newTotpSecret, totpCodeStep } from '../../src/identity/secrets';

describe('operator roles', () => {
  it('gives operator_admin everything, reviewers reviews, lifts, refunds and reading, viewers reading only', () => {
    for (const permission of OPERATOR_PERMISSIONS) expect([permission, operatorRoleMay('operator_admin', permission)]).toEqual([permission, true]);
    expect(OPERATOR_PERMISSIONS.filter((p) => operatorRoleMay('operator_reviewer', p))).toEqual(['read', 'decide_reviews', 'lift_restrictions', 'refunds']);
    expect(OPERATOR_PERMISSIONS.filter((p) => operatorRoleMay('operator_viewer', p))).toEqual(['read']);
    expect(operatorRolesWith('operators')).toEqual(['operator_admin']);
    expect(operatorRolesWith('read')).toEqual([...OPERATOR_ROLES]);
  });
});

/** The admin routes of the OpenAPI document, as [METHOD, path with :params relative to /admin/v1]. */
function documentedAdminRoutes(): Array<[string, string]> {
  const doc = openApiDocument('http://localhost') as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/admin/v1/'))
    .flatMap(([path, operations]) => Object.keys(operations).map((method): [string, string] => [method.toUpperCase(), path.slice('/admin/v1'.length).replace(/\{([^}]+)\}/g, ':$1')]));
}

describe('the admin route table', () => {
  it('lists every documented admin change (none falls to the operator_admin-only default unnoticed), and only documented routes', () => {
    const documented = documentedAdminRoutes();
    const key = (method: string, path: string) => `${method} ${path.replace(/:[A-Za-z_]+/g, ':x')}`;
    const listed = new Set(ADMIN_ROUTE_PERMISSIONS.map(([method, path]) => key(method, path)));
    const changes = documented.filter(([method]) => method !== 'GET').map(([method, path]) => key(method, path));
    expect(changes.filter((route) => !listed.has(route))).toEqual([]);
    const all = new Set(documented.map(([method, path]) => key(method, path)));
    expect([...listed].filter((route) => !all.has(route))).toEqual([]);
  });

  it('matches paths segment by segment: a GET not listed is reading, any other call not listed is operator_admin only', () => {
    expect(adminRoutePermission('POST', '/charges/ch_1/refund')).toBe('refunds');
    expect(adminRoutePermission('POST', '/charges/ch_1/refund/extra')).toBe('operators');
    expect(adminRoutePermission('DELETE', '/merchants/mer_1/api_keys/key_1')).toBe('merchants');
    expect(adminRoutePermission('GET', '/operators')).toBe('operators');
    expect(adminRoutePermission('HEAD', '/checkouts')).toBe('read');
    expect(adminRoutePermission('PATCH', '/unknown')).toBe('operators');
  });

  it('reads a path as the router does: any letter case, a trailing slash, doubled slashes and percent-encoding name the same route', () => {
    for (const path of ['/OPERATORS', '/Operators/', '//operators', '/%6Fperators', '/%6fPERATORS/']) expect([path, adminRoutePermission('GET', path)]).toEqual([path, 'operators']);
    expect(adminRoutePermission('POST', '/REVIEWS/cpilr_1/APPROVE')).toBe('decide_reviews');
    expect(adminRoutePermission('GET', '/%E0%A4%A')).toBe('read');
  });
});

describe('authenticator codes', () => {
  it('answers the time step a code belongs to, within one step of drift either side, so the step can be spent', () => {
    const secret = newTotpSecret();
    const now = Date.now();
    const step = Math.floor(now / 30_000);
    expect(totpCodeStep(secret, currentTotpCode(secret), now)).toBe(step);
    expect(totpCodeStep(secret, currentTotpCode(secret, 1), now)).toBe(step + 1);
    expect(totpCodeStep(secret, currentTotpCode(secret, -1), now)).toBe(step - 1);
    expect(totpCodeStep(secret, currentTotpCode(secret, 3), now)).toBeNull();
    expect(totpCodeStep(secret, 'abcdef', now)).toBeNull();
  });
});
