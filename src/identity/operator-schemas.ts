import { z } from 'zod';
import { OPERATOR_ROLES } from './operator-roles';
import '../http/openapi-registry';
import { MerchantListQuery } from '../admin/schemas';
import { AuditEntry, InvitationBody, MerchantUser, openInvitationFields } from './schemas';

const role = z
  .enum(OPERATOR_ROLES)
  .openapi({ description: "operator_admin: everything, the operator's people and merchants' settings, keys and people included; operator_reviewer: deciding reviews, lifting restrictions, refunding and reading; operator_viewer: reading only." });

export const OperatorInvitationBody = InvitationBody.extend({ role }).strict();
export type OperatorInvitationBody = z.infer<typeof OperatorInvitationBody>;

export const OperatorRoleBody = z.object({ role }).strict();

export const Operator = MerchantUser.extend({ id: z.string().openapi({ example: 'opr_4Fh2kQ8sLm3Xa7Pc1Rt5VbNw' }), role }).openapi('Operator');

export const OperatorInvitation = z
  .object({
    id: z.string().openapi({ example: 'inv_8Kd2kQ8sLm3Xa7Pc1Rt5VbNw' }),
    email: z.string(),
    role,
    expires_at: z.string().datetime(),
    accept_url: z.string().openapi({ description: 'The link mailed to the person; its `token` works once, for 7 days. Accepting needs an authenticator code.' }),
  })
  .openapi('OperatorInvitation');

export const OperatorOpenInvitation = z.object({ ...openInvitationFields, role }).openapi('OperatorOpenInvitation');

export const OperatorSessionAnswer = z
  .object({
    user: Operator,
    csrf: z.string().openapi({ description: 'Send back as X-Dashboard-CSRF on every state-changing call.' }),
  })
  .openapi('OperatorSession');

export const AuditLogQuery = MerchantListQuery.extend({
  merchant_id: z.string().max(100).optional().openapi({ description: "Only this merchant's entries." }),
  operator_only: z.enum(['true', 'false']).transform((value) => value === 'true').optional().openapi({ description: "`true`: only the operator's own entries (no merchant): its people, failed sign-ins of operators and unknown emails." }),
  actor: z.string().max(320).optional().openapi({ description: 'Only the entries of this actor: its id (usr_..., opr_..., `admin`, `anonymous`) or email (an operator\'s, or the email a failed sign-in tried).' }),
}).strict();

export const OperatorAuditEntry = AuditEntry.extend({
  merchant_id: z.string().nullable().openapi({ description: "The merchant whose log the entry is in; null for the operator's own." }),
  merchant_name: z.string().nullable().openapi({ description: "That merchant's name; null for the operator's own entries." }),
}).openapi('OperatorAuditEntry');
