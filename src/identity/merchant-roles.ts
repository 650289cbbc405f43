/**
 * The roles of a merchant's people and what each may do (operator spec, section 7). The table is
 * data: the role guard (src/identity/middleware.ts) and its tests read it.
 */
export const MERCHANT_ROLES = ['owner', 'developer', 'reviewer', 'viewer'] as const;
export type MerchantRole = (typeof MERCHANT_ROLES)[number];

export const MERCHANT_PERMISSIONS = ['read', 'developers', 'decide_reviews', 'lift_restrictions', 'refunds', 'team', 'audit_log'] as const;
export type MerchantPermission = (typeof MERCHANT_PERMISSIONS)[number];

/** Owners may do everything (refunds included); developers the Developers section and reading; reviewers reviews, restrictions and reading; viewers reading only. */
export const ROLE_PERMISSIONS: Record<MerchantRole, readonly MerchantPermission[]> = {
  owner: MERCHANT_PERMISSIONS,
  developer: ['read', 'developers'],
  reviewer: ['read', 'decide_reviews', 'lift_restrictions'],
  viewer: ['read'],
};

/** What each permission opens, for the 403's hint. */
export const PERMISSION_NAMES: Record<MerchantPermission, string> = {
  read: 'reading the dashboard',
  developers: 'the Developers section',
  decide_reviews: 'deciding reviews',
  lift_restrictions: 'lifting restrictions',
  refunds: 'refunding payments',
  team: 'managing the team',
  audit_log: 'reading the audit log',
};

export function roleMay(role: MerchantRole, permission: MerchantPermission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

/** The roles that hold a permission, for the 403's hint. */
export function rolesWith(permission: MerchantPermission): MerchantRole[] {
  return MERCHANT_ROLES.filter((role) => roleMay(role, permission));
}

/** An invitation, a reset link and a session live this long. */
export const INVITATION_DAYS = 7;
export const PASSWORD_RESET_MINUTES = 60;
/** Reset mails one person receives per hour at most: asking costs nothing, so this keeps anyone from flooding an inbox. */
export const MAX_PASSWORD_RESET_MAILS_PER_HOUR = 5;
export const MERCHANT_SESSION_HOURS = 12;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;
