import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MERCHANT_ROLES, MIN_PASSWORD_LENGTH } from './merchant-roles';
import '../http/openapi-registry';
import { MerchantSettingsSchema } from '../domain/settings';
import { PageQuery } from '../readback/schemas';

const email = z
  .email()
  .max(254)
  .transform((value) => value.trim().toLowerCase())
  .openapi({ description: "The person's email address (compared without case).", example: 'ada@example.com' });
const role = z.enum(MERCHANT_ROLES).openapi({ description: 'owner: everything; developer: the Developers section and reading payments; reviewer: deciding reviews, lifting restrictions and reading; viewer: reading only.' });
const password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH)
  .openapi({ description: `At least ${MIN_PASSWORD_LENGTH} characters, and not easy to guess: common and breached-style passwords, and ones built from the email, are refused (422).` });
const token = z.string().min(1).max(200).openapi({ description: 'The one-time token from the link (its `token` query parameter).' });
const totpCode = z.string().regex(/^\d{6}$/, 'must be 6 digits').openapi({ description: 'The six-digit code of the authenticator app.', example: '123456' });
const recoveryCode = z.string().min(1).max(40).openapi({ description: 'One of the recovery codes shown when the authenticator was enrolled, in place of its code; each works once.', example: 'k7m2q-x9p4r' });

export const InvitationBody = z.object({ email, role }).strict();
export type InvitationBody = z.infer<typeof InvitationBody>;

export const AcceptInvitationBody = z.object({ token, password, totp_code: totpCode.optional() }).strict();
export type AcceptInvitationBody = z.infer<typeof AcceptInvitationBody>;

export const TokenBody = z.object({ token }).strict();

// The password is not length-checked at sign-in: an old rule must not lock anyone out, and a wrong one is simply wrong.
export const SignInBody = z
  .object({ email, password: z.string().min(1).max(MAX_PASSWORD_LENGTH).openapi({ description: "The person's password." }), totp_code: totpCode.optional(), recovery_code: recoveryCode.optional() })
  .strict();
export type SignInBody = z.infer<typeof SignInBody>;

export const RoleChangeBody = z.object({ role }).strict();

export const TotpConfirmBody = z.object({ code: totpCode }).strict();

/** Proof of the authenticator a person holds: a current code of it, or one of their recovery codes. */
export const AuthenticatorProofBody = z
  .object({
    totp_code: totpCode.optional().openapi({ description: 'A current code of the authenticator enrolled now.' }),
    recovery_code: recoveryCode.optional(),
  })
  .strict();

export const RecoveryCodes = z
  .object({ recovery_codes: z.array(z.string()).openapi({ description: 'Ten one-time codes, shown this once (only their hashes are kept): each signs in, or completes a password reset, in place of an authenticator code. A new set replaces the old.' }) })
  .openapi('RecoveryCodes');

export const PasswordResetRequestBody = z.object({ email }).strict();
export const PasswordResetBody = z
  .object({
    token,
    password,
    totp_code: totpCode.optional().openapi({ description: 'A person with an authenticator: a current code of it. An authenticator recovery link, or a person without one: the code of the authenticator enrolled on the page (POST /merchant/v1/password-resets/totp).' }),
    recovery_code: recoveryCode.optional(),
  })
  .strict();
export type PasswordResetBody = z.infer<typeof PasswordResetBody>;

const timestamp = z.string().datetime();

export const MerchantUser = z
  .object({
    id: z.string().openapi({ example: 'usr_4Fh2kQ8sLm3Xa7Pc1Rt5VbNw' }),
    email: z.string(),
    role,
    totp_enabled: z.boolean().openapi({ description: 'Whether the person signs in with an authenticator app too.' }),
    created_at: timestamp,
  })
  .openapi('MerchantUser');

/** A person with an authenticator just enrolled (invitation, enrolment confirmation): their recovery codes come with it, this once. */
export const EnrolledUser = MerchantUser.extend({ recovery_codes: RecoveryCodes.shape.recovery_codes }).openapi('EnrolledMerchantUser');

export const Invitation = z
  .object({
    id: z.string().openapi({ example: 'inv_8Kd2kQ8sLm3Xa7Pc1Rt5VbNw' }),
    email: z.string(),
    role,
    expires_at: timestamp,
    accept_url: z.string().openapi({ description: 'The link mailed to the person; its `token` works once, for 7 days.' }),
  })
  .openapi('MerchantInvitation');

/** An open invitation in its list: who sent it, and no link (the token is in the mail only). */
export const openInvitationFields = {
  id: z.string().openapi({ example: 'inv_8Kd2kQ8sLm3Xa7Pc1Rt5VbNw' }),
  email: z.string(),
  expires_at: timestamp,
  created_at: timestamp,
  invited_by: z.string().openapi({ description: "Who sent it: a person of the account (usr_...), one of the operator's people (opr_...), or `admin` (the operator's admin token)." }),
  invited_by_email: z.string().nullable().openapi({ description: "The sender's email; null for the admin token." }),
};
export const OpenInvitation = z.object({ ...openInvitationFields, role }).openapi('MerchantOpenInvitation');

export const SessionMerchant = z.object({ id: z.string(), name: z.string(), environment: z.enum(['sandbox', 'production']) });

export const SignedIn = z
  .object({
    user: MerchantUser,
    merchant: SessionMerchant,
    csrf_token: z.string().openapi({ description: 'Send as X-CSRF-Token on every change under /merchant/v1.' }),
    totp_enrolment_required: z.boolean().openapi({ description: 'True for an owner of a production account without an authenticator (promoted since): until they enrol one (POST /merchant/v1/me/totp), every call past /me is 403.' }),
  })
  .openapi('MerchantSession');

export const AuthenticatorRecovery = z
  .object({ id: z.string(), recovery_started: z.literal(true).openapi({ description: 'Always true.' }), expires_at: z.string().datetime().openapi({ description: 'Until when the mailed link works.' }) })
  .openapi('AuthenticatorRecovery');

export const TotpEnrolment = z
  .object({
    secret: z.string().openapi({ description: 'The base32 secret, for entering by hand.' }),
    otpauth_uri: z.string().openapi({ description: 'The otpauth:// URI (shown as a QR code).' }),
    qr_code: z.string().openapi({ description: 'The otpauth:// URI as a QR code: a PNG data URL (data:image/png;base64,...) for an <img>.' }),
  })
  .openapi('TotpEnrolment');

export const AuditEntry = z
  .object({
    id: z.string().openapi({ example: 'aud_2Lq2kQ8sLm3Xa7Pc1Rt5VbNw' }),
    actor: z.string().openapi({ description: "The person (usr_...) who made the change, one of the operator's people (opr_...), `admin` for the operator's admin token (automation), the invitation (inv_...) before its person has an account, or `anonymous` for someone not signed in (a failed sign-in)." }),
    actor_kind: z.enum(['person', 'operator', 'admin', 'invitation', 'anonymous']).openapi({ description: "`person`: one of this account's people; `operator`: one of the operator's people, through the operator dashboard; `admin`: the operator's admin token; `invitation`: an invited person before their account exists; `anonymous`: someone not signed in (a failed sign-in, a throttle engaged)." }),
    actor_email: z.string().nullable().openapi({ description: "The acting person's email: one of the operator's people's (kept with the entry), the email tried by someone not signed in, or one of this account's people's while they are in the team; null for the admin token, an invitation, or a person removed since." }),
    action: z.string().openapi({ example: 'member.role_changed' }),
    target: z.string().nullable().openapi({ description: 'The id of what was changed.' }),
    details: z.record(z.string(), z.unknown()),
    client_address: z.string().nullable().openapi({ description: "The client address of the request that made the change; null for the service's own work." }),
    at: timestamp,
  })
  .openapi('MerchantAuditEntry');

export const WebhookUrlBody = MerchantSettingsSchema.pick({ webhook_url: true }).strict();
export const EnabledEventsBody = MerchantSettingsSchema.pick({ enabled_events: true }).strict();

export const WebhookSettings = z
  .object({
    webhook_url: z.string().nullable(),
    previous_webhook_secret_expires_at: timestamp.nullable().openapi({ description: 'Until when the rolled signing secret still signs beside the current one; null outside an overlap.' }),
  })
  .openapi('MerchantWebhookSettings');

export const EnabledEventsCatalog = z
  .object({
    always_on_events: z.array(z.string()).openapi({ description: 'Always sent; not a choice.' }),
    groups: z
      .array(
        z.object({
          name: z.string(),
          events: z
            .array(z.object({ type: z.string(), enabled: z.boolean(), note: z.string().nullable().openapi({ description: 'What to know before choosing (checkout.failed, for a merchant that takes withdrawals).' }) }))
            .openapi({ description: "The group's optional events, each on or off for this account." }),
        }),
      )
      .openapi({ description: "The optional events in the event catalog's groups." }),
  })
  .openapi('MerchantEnabledEvents');

export const ReviewQueueQuery = PageQuery.extend({
  status: z.enum(['pending', 'approved', 'declined']).optional().openapi({ description: 'Only reviews in this status.', example: 'pending' }),
  order: z.enum(['oldest', 'newest']).default('oldest').openapi({ description: '`oldest` (the queue) or `newest` (recent decisions first).', example: 'oldest' }),
});

export const CustomerSearchQuery = PageQuery.extend({
  q: z.string().trim().min(1).max(200).optional().openapi({ description: 'A customer id, or part of the email, a name, the phone number or the internal id (case-insensitive).', example: 'ada@' }),
  restricted: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .openapi({ description: '`true`: only restricted customers; `false`: only the others.', example: 'true' }),
});

const searchId = z.string().min(1).max(64);
export const PaymentSearchQuery = PageQuery.extend({
  q: z.string().trim().min(1).max(200).optional().openapi({ description: 'What a person types: an id (chk_, ch_, cus_) or part of a customer\'s email.', example: 'ada@' }),
  customer_id: searchId.optional().openapi({ description: "Only this customer's.", example: 'cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw' }),
  checkout_id: searchId.optional().openapi({ description: 'Only this checkout (or its charges).', example: 'chk_4f8Jk2hQ9sLm3Xa7Pc1Rt5Vb' }),
});
