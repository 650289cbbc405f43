import { ID_PREFIX, newId } from '../domain/ids';
import type { Db } from '../storage/db';
import { insertAuditEntry, type MerchantAuditRow } from '../storage/audit-log';
import { pageAuditLogUnscoped, pageMerchantAuditLog, UnknownCursorError } from '../storage/pages';
import { AdminNotFoundError, MerchantNotFoundError } from '../http/errors';
import { findAccountsByIdsUnscoped, findMerchantUsersByIds, isOperator, type AccountRow } from '../storage/people';
import { findMerchantNamesByIdsUnscoped } from '../storage/merchants';
import { actorName, type Actor } from './context';

/** The audit log's actions: every change made through /merchant/v1 and the admin API's invitations. */
export type AuditAction =
  | 'invitation.created'
  | 'invitation.accepted'
  | 'invitation.revoked'
  | 'member.role_changed'
  | 'member.removed'
  | 'session.created'
  | 'sign_in.failed'
  | 'sign_in.throttled'
  | 'session.ended'
  | 'totp.enrolment_started'
  | 'totp.enabled'
  | 'recovery_code.used'
  | 'recovery_codes.regenerated'
  | 'authenticator.recovery_started'
  | 'password.reset_requested'
  | 'password.reset'
  | 'api_key.issued'
  | 'api_key.revoked'
  | 'webhook_url.changed'
  | 'signing_secret.rolled'
  | 'signing_secret.revealed'
  | 'enabled_events.changed'
  | 'event.resent'
  | 'review.approved'
  | 'review.declined'
  | 'customer.unrestricted'
  | 'charge.refunded'
  | 'settings.changed'
  | 'subscription.cancelled'
  | 'subscription.cancel_scheduled'
  | 'subscription.payment_method_changed'
  | 'operator.role_changed'
  | 'operator.removed';

/**
 * Writes one audit row; callers pass their transaction so the change and its row commit together.
 * `merchantId` is null for the operator's own entries (an operator invited, signed in, removed).
 */
export async function recordAudit(db: Db, entry: { merchantId: string | null; actor: Actor; action: AuditAction; target: string | null; details?: Record<string, unknown> }): Promise<void> {
  const { actor } = entry;
  const actorEmail = actor.kind === 'operator' || actor.kind === 'anonymous' ? actor.email : null;
  await insertAuditEntry(db, {
    id: newId('auditEntry'),
    merchant_id: entry.merchantId,
    actor: actorName(actor),
    actor_email: actorEmail,
    action: entry.action,
    target: entry.target,
    details: entry.details ?? {},
    client_address: actor.address ?? null,
  });
}

/** The actor of a person acting on their own account (a sign-in, an enrolment, a reset), from `address` when a request tells it. */
export function actorOfAccount(account: AccountRow, address?: string): Actor {
  const actor: Actor = isOperator(account) ? { kind: 'operator', id: account.id, email: account.email } : { kind: 'user', id: account.id };
  return address === undefined ? actor : { ...actor, address };
}

/** Who an entry's actor is, from its id's prefix: the operator's people are opr_, the merchant's usr_. */
function actorKind(actor: string): 'person' | 'operator' | 'admin' | 'invitation' | 'anonymous' {
  if (actor === 'admin' || actor === 'anonymous') return actor;
  if (actor.startsWith(ID_PREFIX.operatorUser)) return 'operator';
  if (actor.startsWith(ID_PREFIX.invitation)) return 'invitation';
  return 'person';
}

/** `actor_email`: an operator's as kept with the entry, else the person's while they are in the team (null for the admin token, an invitation, or someone removed since). */
export function presentAuditEntry(row: MerchantAuditRow, emails: Map<string, string> = new Map()) {
  return { id: row.id, actor: row.actor, actor_kind: actorKind(row.actor), actor_email: row.actor_email ?? emails.get(row.actor) ?? null, action: row.action, target: row.target, details: row.details, client_address: row.client_address, at: row.created_at.toISOString() };
}

/** One page of the merchant's audit log, newest first. */
export async function auditLogPage(db: Db, merchantId: string, page: { limit: number; starting_after?: string }) {
  try {
    const { rows, hasMore } = await pageMerchantAuditLog(db, merchantId, { limit: page.limit, startingAfter: page.starting_after });
    const emails = new Map((await findMerchantUsersByIds(db, merchantId, rows.map((row) => row.actor))).map((user) => [user.id, user.email]));
    return { results: rows.map((row) => presentAuditEntry(row, emails)), has_more: hasMore, next_starting_after: hasMore ? rows[rows.length - 1]!.id : null };
  } catch (error) {
    if (error instanceof UnknownCursorError) throw new MerchantNotFoundError('Audit entry not found.', `starting_after ${error.cursor} is not an entry of this account's audit log.`);
    throw error;
  }
}

/** What the operator's audit page filters by: a merchant's entries, the operator's own, an actor (id or email). */
export interface AuditLogFilters {
  merchant_id?: string;
  operator_only?: boolean;
  actor?: string;
}

/** One page of the whole audit log for the operator, newest first; each entry names its merchant (null: the operator's own). */
export async function operatorAuditLogPage(db: Db, filters: AuditLogFilters, page: { limit: number; starting_after?: string }) {
  try {
    const { rows, hasMore } = await pageAuditLogUnscoped(db, { merchantId: filters.merchant_id, operatorOnly: filters.operator_only, actor: filters.actor }, { limit: page.limit, startingAfter: page.starting_after });
    // People and merchants by name: the page is read by a person, and the log spans every merchant.
    const people = await findAccountsByIdsUnscoped(db, rows.map((row) => row.actor));
    const emails = new Map([...people].map(([id, person]) => [id, person.email]));
    const merchants = await findMerchantNamesByIdsUnscoped(db, rows.flatMap((row) => (row.merchant_id ? [row.merchant_id] : [])));
    const results = rows.map((row) => ({ ...presentAuditEntry(row, emails), merchant_id: row.merchant_id, merchant_name: row.merchant_id ? (merchants.get(row.merchant_id) ?? null) : null }));
    return { results, has_more: hasMore, next_starting_after: hasMore ? rows[rows.length - 1]!.id : null };
  } catch (error) {
    if (error instanceof UnknownCursorError) throw new AdminNotFoundError('Audit entry not found.', `starting_after ${error.cursor} is not an entry of the audit log.`);
    throw error;
  }
}
