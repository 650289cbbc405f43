import type { MerchantInvitationRow } from '../storage/invitations';
import type { AccountRow } from '../storage/people';

export function presentUser(user: AccountRow) {
  return { id: user.id, email: user.email, role: user.role, totp_enabled: user.totp_enabled_at !== null, created_at: user.created_at.toISOString() };
}

export function presentInvitation(invitation: MerchantInvitationRow, acceptUrl: string) {
  return { id: invitation.id, email: invitation.email, role: invitation.role, expires_at: invitation.expires_at.toISOString(), accept_url: acceptUrl };
}

/** An open invitation as its list shows it: no link (the token is in the mail only), and who sent it. */
export function presentOpenInvitation(invitation: MerchantInvitationRow, inviterEmail: string | null) {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    expires_at: invitation.expires_at.toISOString(),
    created_at: invitation.created_at.toISOString(),
    invited_by: invitation.invited_by,
    invited_by_email: inviterEmail,
  };
}

/** The pages the mailed links open (src/dashboards/links/routes.ts). */
export const ACCEPT_INVITATION_PATH = '/merchant/accept-invitation';
export const RESET_PASSWORD_PATH = '/merchant/reset-password';

export const linkWithToken = (apiBaseUrl: string, path: string, token: string) => `${apiBaseUrl}${path}?token=${encodeURIComponent(token)}`;

/** A role as people read it: "operator_admin" -> "Operator admin", "owner" -> "Owner" (the dashboards' kit says it the same way). */
export const roleInWords = (role: string) => role.charAt(0).toUpperCase() + role.slice(1).replace(/_/g, ' ');

/** A date in a mail, the dashboards' way, in UTC (the reader's zone is unknown): "Dec 5, 2026, 9:05 AM UTC". */
export const mailDate = (date: Date) => `${new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(date)} UTC`;
