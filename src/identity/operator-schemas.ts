import { z } from 'zod';
import { OPERATOR_ROLES } from './operator-roles';
import '../http/openapi-registry';
import { InvitationBody, MerchantUser, openInvitationFields } from './schemas';

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
