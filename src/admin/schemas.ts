import { z } from 'zod';
import '../http/openapi-registry';
import { ALWAYS_ON_EVENT_TYPES, OPTIONAL_EVENT_TYPES } from '../domain/event-types';

/**
 * Every admin list pages with a cursor: `limit` rows, then `starting_after` the last id answered
 * for the next page, until `has_more` is false. A search (merchants, checkouts, charges,
 * restricted customers) answers at most this many rows per page.
 */
export const MAX_ADMIN_RESULTS = 200;
/** ... and this many when no limit is given. */
export const DEFAULT_ADMIN_RESULTS = 50;

/** The operator's queues and logs (reviews, events, subscriptions): at most this many rows per page. */
export const MAX_ADMIN_LIST_LIMIT = 500;
/** ... and this many when no limit is given. */
export const DEFAULT_ADMIN_LIST_LIMIT = 100;
export const adminListLimit = z.coerce.number().int().min(1).max(MAX_ADMIN_LIST_LIMIT).default(DEFAULT_ADMIN_LIST_LIMIT);

const id = z.string().min(1).max(64);
const limit = z.coerce.number().int().min(1).max(MAX_ADMIN_RESULTS).default(DEFAULT_ADMIN_RESULTS);
/** The last id of the previous page; a row of another kind, or of another merchant than `merchant_id`, is 404. */
export const startingAfter = id.optional();

/**
 * Search of checkouts or charges. `q` is what a person types: an id (chk_, ch_, cus_, mer_) or
 * part of a customer's email; the named fields narrow further.
 */
export const AdminSearchQuery = z.object({
  q: z.string().trim().max(200).optional(),
  merchant_id: id.optional(),
  customer_id: id.optional(),
  checkout_id: id.optional(),
  limit,
  starting_after: startingAfter,
});
export type AdminSearchQuery = z.infer<typeof AdminSearchQuery>;

export const RestrictedCustomersQuery = z.object({ merchant_id: id.optional(), limit, starting_after: startingAfter });
export const MerchantListQuery = z.object({
  q: z.string().trim().min(1).max(200).optional().openapi({ description: "Part of the merchant's name or id (case-insensitive).", example: 'acme' }),
  limit,
  starting_after: startingAfter,
});

export const EventReplayBody = z
  .object({
    type: z.enum([...ALWAYS_ON_EVENT_TYPES, ...OPTIONAL_EVENT_TYPES]).optional(),
    merchant_id: id.optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    failed_only: z.boolean().default(false),
    dry_run: z.boolean().default(false),
  })
  .strict()
  .refine((b) => !b.from || !b.to || new Date(b.from) < new Date(b.to), { message: 'from must be before to' });
export type EventReplayBody = z.infer<typeof EventReplayBody>;
