import type { OperatorPermission } from '../identity/operator-roles';

/**
 * What each admin API route asks of an operator's role, as data: the guard reads it for every
 * call made with a dashboard session, and a test walks it against every admin route of the
 * OpenAPI document. Paths are under /admin/v1, `:x` one path segment. A GET not listed is reading;
 * any other call not listed needs `operators` (operator_admin alone), so a new route is closed to
 * reviewers and viewers until it is listed here.
 */
export const ADMIN_ROUTE_PERMISSIONS: ReadonlyArray<readonly [method: string, path: string, permission: OperatorPermission]> = [
  ['POST', '/merchants', 'merchants'],
  ['PATCH', '/merchants/:id/settings', 'merchants'],
  ['POST', '/merchants/:id/webhook_secret/roll', 'merchants'],
  ['POST', '/merchants/:id/api_keys', 'merchants'],
  ['DELETE', '/merchants/:id/api_keys/:keyPrefix', 'merchants'],
  ['POST', '/merchants/:id/invitations', 'merchants'],
  ['DELETE', '/merchants/:id/invitations/:invitationId', 'merchants'],
  ['POST', '/reviews/:id/approve', 'decide_reviews'],
  ['POST', '/reviews/:id/decline', 'decide_reviews'],
  ['POST', '/customers/:id/unrestrict', 'lift_restrictions'],
  ['POST', '/charges/:id/refund', 'refunds'],
  ['POST', '/events/:id/resend', 'events'],
  ['POST', '/events/replay', 'events'],
  ['POST', '/subscriptions/:id/cancel', 'subscriptions'],
  ['POST', '/subscriptions/:id/payment_method', 'subscriptions'],
  ['POST', '/subscriptions/:id/test_clock/advance', 'subscriptions'],
  ['POST', '/customers/:id/test_clock', 'subscriptions'],
  ['POST', '/sandbox/charges/:id/transition', 'sandbox'],
  ['GET', '/operators', 'operators'],
  ['GET', '/operators/invitations', 'operators'],
  ['GET', '/audit-log', 'operators'],
  ['POST', '/operators/invitations', 'operators'],
  ['DELETE', '/operators/invitations/:invitationId', 'operators'],
  ['PATCH', '/operators/:id', 'operators'],
  ['DELETE', '/operators/:id', 'operators'],
  ['POST', '/operators/:id/authenticator-recovery', 'operators'],
];

const READING = new Set(['GET', 'HEAD']);

const matchers = ADMIN_ROUTE_PERMISSIONS.map(([method, path, permission]) => ({
  method,
  // Express routes ignore letter case, so the table must too: a route it reaches is a route listed here.
  pattern: new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}/?$`, 'i'),
  permission,
}));

/** The permission a call under /admin/v1 needs (`path` relative to /admin/v1, as Express gives it to the mount's guard). */
export function adminRoutePermission(method: string, path: string): OperatorPermission {
  const verb = method === 'HEAD' ? 'GET' : method;
  const normal = normalPath(path);
  const listed = matchers.find((m) => m.method === verb && m.pattern.test(normal));
  if (listed) return listed.permission;
  return READING.has(method) ? 'read' : 'operators';
}

/** The path as a router could read it: percent-encoding decoded (an undecodable one as it is) and runs of slashes as one. */
function normalPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Left as it is: a router cannot decode it either.
  }
  return decoded.replace(/\/{2,}/g, '/');
}
