import { OPERATOR_PERMISSIONS, OPERATOR_ROLES, operatorRoleMay, operatorRolesWith } from '../../src/identity/operator-roles';
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
