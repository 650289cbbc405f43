/** What each role may do (the server enforces it; the pages hide what the role may not do). */
const ROLE_PERMISSIONS = {
  owner: ['read', 'developers', 'decide_reviews', 'lift_restrictions', 'refunds', 'team', 'audit_log'],
  developer: ['read', 'developers'],
  reviewer: ['read', 'decide_reviews', 'lift_restrictions'],
  viewer: ['read'],
};
export const may = (role, permission) => (ROLE_PERMISSIONS[role] || []).includes(permission);
/** The roles that hold a permission, for the page that tells a person who may open it. */
export const rolesWith = (permission) => Object.keys(ROLE_PERMISSIONS).filter((role) => may(role, permission));
