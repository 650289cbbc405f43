/**
 * The roles of the operator's people and what each may do on the admin API and its dashboard.
 * The table is data: each admin API route declares the permission it needs
 * (`operator(permission)`, src/identity/route-access.ts), and the check and the tests read the
 * table. The bearer ADMIN_TOKEN (automation) may do everything.
 */
export const OPERATOR_ROLES = ['operator_admin', 'operator_reviewer', 'operator_viewer'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export const OPERATOR_PERMISSIONS = ['read', 'decide_reviews', 'lift_restrictions', 'refunds', 'events', 'merchants', 'subscriptions', 'sandbox', 'operators'] as const;
export type OperatorPermission = (typeof OPERATOR_PERMISSIONS)[number];

/** Admins may do everything (operators included); reviewers decide reviews, lift restrictions, refund and read; viewers read only. */
export const OPERATOR_ROLE_PERMISSIONS: Record<OperatorRole, readonly OperatorPermission[]> = {
  operator_admin: OPERATOR_PERMISSIONS,
  operator_reviewer: ['read', 'decide_reviews', 'lift_restrictions', 'refunds'],
  operator_viewer: ['read'],
};

/** What each permission opens, for the 403's hint. */
export const OPERATOR_PERMISSION_NAMES: Record<OperatorPermission, string> = {
  read: 'reading the dashboard',
  decide_reviews: 'deciding reviews',
  lift_restrictions: 'lifting restrictions',
  refunds: 'refunding payments',
  events: 'resending and replaying events',
  merchants: 'onboarding merchants and changing their settings, keys and people',
  subscriptions: 'changing subscriptions',
  sandbox: 'moving sandbox charges',
  operators: "managing the operator's people",
};

export function operatorRoleMay(role: OperatorRole, permission: OperatorPermission): boolean {
  return OPERATOR_ROLE_PERMISSIONS[role].includes(permission);
}

/** The roles that hold a permission, for the 403's hint. */
export function operatorRolesWith(permission: OperatorPermission): OperatorRole[] {
  return OPERATOR_ROLES.filter((role) => operatorRoleMay(role, permission));
}

/** An operator's dashboard session lives this long (a working day): shorter than a merchant's, since it reaches every merchant. */
export const OPERATOR_SESSION_HOURS = 8;
