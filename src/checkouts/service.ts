import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AppDeps } from '../app-deps';
import { hashSecret, hashesEqual, type Sealer } from '../crypto';
import { newId, randomToken, tokenFromDigest } from '../domain/ids';
import { ConflictError, NotFoundError, UnsupportedError, ValidationError } from '../http/errors';
import { IDEMPOTENCY_KEY_TTL_HOURS } from '../storage/idempotency-keys';
import type { Db } from '../storage/db';
import type { MerchantRow } from '../storage/merchants';
import { findCheckout, type CheckoutRow, type StoredLineItem } from '../storage/checkouts';
import { CheckoutWriteOutcomeUnknown, insertCheckoutForCustomer, writeMayHaveCommitted } from '../storage/checkout-inserts';
import type { CredentialGuard } from '../storage/api-keys';
import { findOrInsertDedupProduct, findProducts, insertProduct, type ProductRow } from '../storage/products';
import { abandonCheckoutWorkflow, deadlineWorkflowId, startCheckoutWorkflow } from '../temporal/checkouts';
import { acceptPaymentOptions, detectFlow, flowNotEnabled, isRefusal, lineItemKind, lineItemsTotal } from './flows';
import type { CheckoutCreateBody, LineItemInput } from './schemas';

export type CheckoutDeps = Pick<AppDeps, 'db' | 'temporal' | 'config' | 'sealer'>;

/**
 * The per-checkout client secret: not a merchant credential (those start with `secret_`), so
 * it can never authenticate an API call. Only its SHA-256 is stored.
 */
export const CHECKOUT_CLIENT_SECRET_PREFIX = 'cs_';
const CLIENT_SECRET_LENGTH = 40;

/**
 * The client secret of a checkout whose id comes from an Idempotency-Key: derived from that id under
 * the service's key, so a retry of a create whose answer was lost can answer the same checkout with
 * the same secret. Nobody without the key can compute it; other checkouts get a random one.
 */
function clientSecretFor(sealer: Sealer, idempotentId: string | undefined): string {
  if (idempotentId === undefined) return CHECKOUT_CLIENT_SECRET_PREFIX + randomToken(CLIENT_SECRET_LENGTH);
  return CHECKOUT_CLIENT_SECRET_PREFIX + tokenFromDigest(sealer.derive('checkout client secret', idempotentId), CLIENT_SECRET_LENGTH);
}

export interface CreatedCheckout {
  checkout: CheckoutRow;
  /** Known only here: the row keeps its hash. */
  clientSecret: string;
}

type InlineProduct = Extract<LineItemInput, { name: string }>;
/** A line whose product is known (a reference) or still to be created or reused (inline). */
type PlannedLine = { product: ProductRow; quantity: number } | { inline: InlineProduct; quantity: number };

/** A checkout's creation as the request gives it: the id its Idempotency-Key derives, and the check of its API key (checkedInStatement). */
export interface CheckoutRequest {
  id?: string;
  credential?: CredentialGuard;
}

/**
 * Validates the body and resolves referenced products first, then starts the workflow, then
 * records products and checkout in one transaction. A crash between the two leaves a workflow
 * without a row, which the workflow tolerates; the reverse (a row without a workflow, a
 * checkout nothing would ever expire) cannot happen. A write that failed ends the workflow; one
 * whose answer was lost is read back first, and answered as created when it committed.
 *
 * The customer and the API key (`given.credential`) are checked by the checkout's INSERT itself
 * (insertCheckoutForCustomer), not by lookups before the start: one round trip to PostgreSQL for
 * every checkout. A customer that is missing or another merchant's, or a key revoked since the
 * cache read it, is thus refused after the workflow started, which is then ended like any other
 * unrecorded checkout's (terminated, reason "checkout was not recorded", never having run a task:
 * it starts delayed). Undefined: nothing was written, for either reason (checkedInStatement tells them apart).
 */
export async function createCheckout(deps: CheckoutDeps, merchant: MerchantRow, body: CheckoutCreateBody, given: CheckoutRequest = {}): Promise<CreatedCheckout | undefined> {
  const flow = allowedFlow(merchant, body);
  const options = acceptPaymentOptions(body.payment_options, body.type, merchant.settings.payment_methods[body.type]);
  if (isRefusal(options)) throw new UnsupportedError(options.error, options.hint);
  const lines = await planLines(deps.db, merchant.id, body.line_items ?? []);
  const total = lines.length ? totalOf(lines) : null;

  const expiresAt = new Date(Date.now() + merchant.settings.checkout_expiry_seconds * 1000);
  const start = (checkoutId: string, deadline = expiresAt) =>
    startCheckoutWorkflow(deps.temporal, deps.config, {
      checkoutId,
      merchantId: merchant.id,
      customerId: body.customer_id,
      type: body.type,
      expiresAt: deadline.toISOString(),
      maxAttempts: merchant.settings.max_attempts_per_checkout ?? undefined,
    }, deps.config.checkoutDelayedStart);
  // An id derived from an Idempotency-Key makes a retried create meet its own workflow, never start a second.
  const earlier = given.id === undefined ? undefined : await findCheckout(deps.db, merchant.id, given.id);
  if (earlier && madeUnderThisKey(earlier)) {
    return answerAgain(deps, earlier, clientSecretFor(deps.sealer, earlier.id), () => start(earlier.id, earlier.expires_at));
  }
  // A checkout older than the key was made under an earlier use of it, which has expired: this request is a new one.
  let id = earlier ? newId('checkout') : (given.id ?? newId('checkout'));
  try {
    await start(id);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError && id === given.id)) throw error;
    // No checkout has the derived id: the key's earlier request failed after starting the workflow
    // (a 5xx that wrote nothing, which released the key, or a process that died), so this request
    // makes the checkout, under a new id, and ends the unrecorded workflow.
    await abandonCheckoutWorkflow(deps.temporal, id);
    id = newId('checkout');
    await start(id);
  }
  const clientSecret = clientSecretFor(deps.sealer, id === given.id ? id : undefined);
  const secretHash = hashSecret(clientSecret);
  const insert = async (db: Db, lineItems: StoredLineItem[]) => {
    const checkout = await insertCheckoutForCustomer(db, {
      credential: given.credential,
      id,
      merchant_id: merchant.id,
      customer_id: body.customer_id,
      type: body.type,
      flow,
      client_secret_hash: secretHash,
      fixed_amount_cents: body.fixed_amount_cents ?? null,
      balance_amount_cents: body.balance_amount_cents ?? null,
      line_items: lineItems,
      line_items_total_amount_cents: total,
      subscription: body.subscription_data ?? null,
      experience: body.experience ?? null,
      payment_options: options.paymentOptions,
      return_url: body.return_url ?? null,
      currency: 'USD',
      max_attempts: merchant.settings.max_attempts_per_checkout,
      expires_at: expiresAt,
    });
    // A transaction with line items rolls back, products included.
    if (!checkout) throw new CheckoutNotWritten();
    return checkout;
  };
  try {
    // Line items may add products first, in the same commit; without them one statement is the commit.
    const checkout = lines.length
      ? await deps.db.transaction(async (trx) => insert(trx, await recordLines(trx, merchant.id, lines))).catch((error: unknown) => readBackCommit(deps.db, merchant.id, id, secretHash, error))
      : await insert(deps.db, []);
    return { checkout, clientSecret };
  } catch (error) {
    // A write whose outcome is unknown may have made the checkout: its workflow stays (a workflow
    // without a row ends at the deadline, finding nothing to expire), and a retry with the same
    // Idempotency-Key answers the checkout if it exists. Any other failure wrote nothing, and its
    // workflow was started for a checkout never recorded (the refusals of the INSERT included).
    if (!(error instanceof CheckoutWriteOutcomeUnknown)) await abandonCheckoutWorkflow(deps.temporal, id);
    if (error instanceof CheckoutNotWritten) return undefined;
    throw error;
  }
}

/** The checkout's INSERT refused it: its customer is not the merchant's, or its credential check failed. */
class CheckoutNotWritten extends Error {}

/**
 * A transaction whose answer (its COMMIT's, say) was lost may have committed: the checkout is read
 * back. Found with our client secret, it was written; absent, it was not (the original error stands);
 * unreadable, its outcome is unknown (CheckoutWriteOutcomeUnknown).
 */
async function readBackCommit(db: Db, merchantId: string, id: string, secretHash: Buffer, error: unknown): Promise<CheckoutRow> {
  if (error instanceof CheckoutNotWritten || !writeMayHaveCommitted(error)) throw error;
  let stored: CheckoutRow | undefined;
  try {
    stored = await findCheckout(db, merchantId, id);
  } catch {
    throw new CheckoutWriteOutcomeUnknown(error);
  }
  if (stored && hashesEqual(stored.client_secret_hash, secretHash)) return stored;
  throw error;
}

/**
 * A checkout younger than the key's IDEMPOTENCY_KEY_TTL_HOURS with the id the key derives is the
 * key's own; an older one was made under an earlier use of the key, which has expired.
 */
function madeUnderThisKey(earlier: CheckoutRow): boolean {
  return earlier.created_at.getTime() > Date.now() - IDEMPOTENCY_KEY_TTL_HOURS * 3_600_000;
}

/**
 * The key's own checkout, its first answer lost (a 5xx whose write had committed, a process that
 * died after the commit): answered again, with the same client secret, once its workflow is known
 * to run. One whose secret is not the derived one (made before secrets were derived), or whose
 * workflow has ended, is never answered as new.
 */
async function answerAgain(deps: CheckoutDeps, earlier: CheckoutRow, clientSecret: string, start: () => Promise<void>): Promise<CreatedCheckout> {
  if (!hashesEqual(earlier.client_secret_hash, hashSecret(clientSecret))) throw idempotentCheckoutTaken(earlier.id);
  try {
    await start(); // its workflow, if the first request never got to start it
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const { status } = await deps.temporal.workflow.getHandle(deadlineWorkflowId(earlier.id, deps.config.checkoutDelayedStart)).describe();
    if (status.name !== 'RUNNING') throw idempotentCheckoutTaken(earlier.id);
  }
  return { checkout: earlier, clientSecret };
}

/**
 * An id derived from an Idempotency-Key whose checkout already exists, though the key's stored
 * answer is gone and the checkout cannot be answered again: never a second checkout.
 */
function idempotentCheckoutTaken(id: string): ConflictError {
  return new ConflictError('A checkout was already started with this Idempotency-Key.', `Read it with GET /api/v1/checkouts/${id}, or use a new key.`);
}

/** Rules 1 to 3: the body is exactly one flow, and the account allows that flow. */
function allowedFlow(merchant: MerchantRow, body: CheckoutCreateBody) {
  const detected = detectFlow(body);
  if (isRefusal(detected)) throw new UnsupportedError(detected.error, detected.hint);
  const disabled = flowNotEnabled(detected.flow, merchant.settings.checkout_flows);
  if (disabled) throw new UnsupportedError(disabled.error, disabled.hint);
  return detected.flow;
}

/** Resolves product references (this merchant's, active) before anything is started or written. */
async function planLines(db: Db, merchantId: string, items: readonly LineItemInput[]): Promise<PlannedLine[]> {
  const referenced = items.flatMap((item) => ('product_id' in item ? [item.product_id] : []));
  const products = new Map((await findProducts(db, merchantId, referenced)).map((p) => [p.id, p]));
  const missing = [...new Set(referenced.filter((productId) => !products.has(productId)))];
  // A product of another merchant is reported exactly like a missing one.
  if (missing.length) {
    throw new NotFoundError(`Product not found: ${missing.join(', ')}.`, 'line_items[].product_id must name an active product of this business.');
  }
  const inactive = [...new Set(referenced.filter((productId) => !products.get(productId)!.active))];
  if (inactive.length) {
    throw new ValidationError(`Product not active: ${inactive.join(', ')}.`, 'line_items[].product_id must name an active product of this business.');
  }
  return items.map((item) => ('product_id' in item ? { product: products.get(item.product_id)!, quantity: item.quantity } : { inline: item, quantity: item.quantity }));
}

function totalOf(lines: readonly PlannedLine[]): number {
  const result = lineItemsTotal(lines.map((line) => ({ price_cents: 'product' in line ? line.product.price_cents : line.inline.price_cents, quantity: line.quantity })));
  if (isRefusal(result)) throw new ValidationError(result.error, result.hint);
  return result.total;
}

/** Inside the checkout's transaction: creates or reuses inline products, then snapshots each line. */
async function recordLines(trx: Db, merchantId: string, lines: readonly PlannedLine[]): Promise<StoredLineItem[]> {
  // One at a time: a transaction has one connection, and a second dedup line must see the first's
  // product. Dedup lines first, in one order (sku, then price): two checkouts naming the same
  // dedup products in different orders then wait on each other's inserts in the same order, never
  // in a cycle (PostgreSQL would abort one of them as a deadlock).
  const products: ProductRow[] = new Array(lines.length);
  const order = lines.map((line, index) => ({ line, index })).sort((a, b) => byDedupKey(a.line, b.line));
  for (const { line, index } of order) products[index] = 'product' in line ? line.product : await productFor(trx, merchantId, line.inline);
  const stored: StoredLineItem[] = [];
  for (const [index, line] of lines.entries()) {
    const product = products[index]!;
    stored.push({
      product_id: product.id,
      quantity: line.quantity,
      total_amount_cents: product.price_cents * line.quantity,
      product_name: product.name,
      product_url: product.url,
      product_price_cents: product.price_cents,
      sku: product.sku,
      kind: lineItemKind(product.sku),
    });
  }
  return stored;
}

/** Dedup inline lines first, ordered by sku then price; every other line after them, as given. */
function byDedupKey(a: PlannedLine, b: PlannedLine): number {
  const ka = dedupKey(a);
  const kb = dedupKey(b);
  if (!ka || !kb) return (ka ? 0 : 1) - (kb ? 0 : 1);
  return ka.sku < kb.sku ? -1 : ka.sku > kb.sku ? 1 : ka.price - kb.price;
}

const dedupKey = (line: PlannedLine) =>
  'inline' in line && line.inline.dedup && line.inline.sku !== undefined ? { sku: line.inline.sku, price: line.inline.price_cents } : undefined;

function productFor(trx: Db, merchantId: string, inline: InlineProduct): Promise<ProductRow> {
  const row = {
    id: newId('product'),
    merchant_id: merchantId,
    name: inline.name,
    price_cents: inline.price_cents,
    sku: inline.sku ?? null,
    url: inline.url ?? null,
    dedup: false,
  };
  // The schema guarantees sku when dedup is true; a reused product keeps its own name and url.
  return inline.dedup && inline.sku !== undefined ? findOrInsertDedupProduct(trx, { ...row, sku: inline.sku }) : insertProduct(trx, row);
}
