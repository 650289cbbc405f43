import type { MerchantInvitationRow } from '../storage/invitations';
import type { AccountRow } from '../storage/people';

export function presentUser(user: AccountRow) {
  return { id: user.id, email: user.email, role: user.role, totp_enabled: user.totp_enabled_at !== null, created_at: user.created_at.toISOString() };
}

export function presentInvitation(invitation: MerchantInvitationRow, acceptUrl: string) {
  return { id: invitation.id, email: invitation.email, role: invitation.role, expires_at: invitation.expires_at.toISOString(), accept_url: acceptUrl };
}

/** The pages the mailed links open (src/dashboards/links/routes.ts). */
export const ACCEPT_INVITATION_PATH = '/merchant/accept-invitation';
export const RESET_PASSWORD_PATH = '/merchant/reset-password';

export const linkWithToken = (apiBaseUrl: string, path: string, token: string) => `${apiBaseUrl}${path}?token=${encodeURIComponent(token)}`;
