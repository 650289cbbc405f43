/** What each operator role may do (src/identity/operator-roles.ts; the server enforces it, the pages hide what the role may not do). */
const ROLE_PERMISSIONS = {
  operator_admin: ['read', 'decide_reviews', 'lift_restrictions', 'refunds', 'events', 'merchants', 'subscriptions', 'sandbox', 'operators'],
  operator_reviewer: ['read', 'decide_reviews', 'lift_restrictions', 'refunds'],
  operator_viewer: ['read'],
};
export const may = (role, permission) => (ROLE_PERMISSIONS[role] || []).includes(permission);
/** The roles that hold a permission, for the page that tells a person who may open it. */
export const rolesWith = (permission) => Object.keys(ROLE_PERMISSIONS).filter((role) => may(role, permission));
