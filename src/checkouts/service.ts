import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AppDeps } from '../app-deps';
import { hashSecret } from '../crypto';
import { newId, randomToken } from '../domain/ids';
import { ConflictError, NotFoundError, UnsupportedError, ValidationError } from '../http/errors';
import { IDEMPOTENCY_KEY_TTL_HOURS } from '../storage/idempotency-keys';
import type { Db } from '../storage/db';
import type { MerchantRow } from '../storage/merchants';
import { findCheckout, type CheckoutRow, type StoredLineItem } from '../storage/checkouts';
import { insertCheckoutForCustomer } from '../storage/checkout-inserts';
import { findOrInsertDedupProduct, findProducts, insertProduct, type ProductRow } from '../storage/products';
import { abandonCheckoutWorkflow, startCheckoutWorkflow } from '../temporal/checkouts';
import { acceptPaymentOptions, detectFlow, flowNotEnabled, isRefusal, lineItemKind, lineItemsTotal } from './flows';
import type { CheckoutCreateBody, LineItemInput } from './schemas';

export type CheckoutDeps = Pick<AppDeps, 'db' | 'temporal' | 'config'>;

/**
 * The per-checkout client secret: not a merchant credential (those start with `secret_`), so
 * it can never authenticate an API call. Only its SHA-256 is stored.
 */
export const CHECKOUT_CLIENT_SECRET_PREFIX = 'cs_';
const CLIENT_SECRET_LENGTH = 40;

export interface CreatedCheckout {
  checkout: CheckoutRow;
  /** Known only here: the row keeps its hash. */
  clientSecret: string;
}

type InlineProduct = Extract<LineItemInput, { name: string }>;
/** A line whose product is known (a reference) or still to be created or reused (inline). */
type PlannedLine = { product: ProductRow; quantity: number } | { inline: InlineProduct; quantity: number };

/**
 * Validates the body and resolves referenced products first, then starts the workflow, then
 * records products and checkout in one transaction. A crash between the two leaves a workflow
 * without a row, which the workflow tolerates; the reverse (a row without a workflow, a
 * checkout nothing would ever expire) cannot happen. A failed transaction ends the workflow.
 *
 * The customer is checked by the checkout's INSERT itself (insertCheckoutForCustomer), not by a
 * lookup before the start: one round trip to PostgreSQL instead of two for every checkout. A
 * customer that is missing or another merchant's is thus refused after the workflow started,
 * which is then ended like any other unrecorded checkout's (terminated, reason "checkout was not
 * recorded", never having run a task: it starts delayed).
 */
export async function createCheckout(deps: CheckoutDeps, merchant: MerchantRow, body: CheckoutCreateBody, given: { id?: string } = {}): Promise<CreatedCheckout> {
  const flow = allowedFlow(merchant, body);
  const options = acceptPaymentOptions(body.payment_options, body.type, merchant.settings.payment_methods[body.type]);
  if (isRefusal(options)) throw new UnsupportedError(options.error, options.hint);
  const lines = await planLines(deps.db, merchant.id, body.line_items ?? []);
  const total = lines.length ? totalOf(lines) : null;

  const clientSecret = CHECKOUT_CLIENT_SECRET_PREFIX + randomToken(CLIENT_SECRET_LENGTH);
  const expiresAt = new Date(Date.now() + merchant.settings.checkout_expiry_seconds * 1000);
  const start = (checkoutId: string) =>
    startCheckoutWorkflow(deps.temporal, deps.config.taskQueue, {
      checkoutId,
      merchantId: merchant.id,
      customerId: body.customer_id,
      type: body.type,
      expiresAt: expiresAt.toISOString(),
      maxAttempts: merchant.settings.max_attempts_per_checkout ?? undefined,
    }, deps.config.checkoutDelayedStart);
  // An id derived from an Idempotency-Key makes a retried create meet its own workflow, never start a second.
  let id = await checkoutIdFor(deps.db, merchant.id, given.id);
  try {
    await start(id);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError && id === given.id)) throw error;
    // No checkout has the derived id (checkoutIdFor): the key's earlier request failed after
    // starting the workflow (a 5xx, which released the key, or a process that died), so this
    // request makes the checkout, under a new id, and ends the unrecorded workflow.
    await abandonCheckoutWorkflow(deps.temporal, id);
    id = newId('checkout');
    await start(id);
  }
  const insert = async (db: Db, lineItems: StoredLineItem[]) => {
    const checkout = await insertCheckoutForCustomer(db, {
      id,
      merchant_id: merchant.id,
      customer_id: body.customer_id,
      type: body.type,
      flow,
      client_secret_hash: hashSecret(clientSecret),
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
    // Another merchant's customer is reported exactly like a missing one (a transaction with line
    // items then rolls back, products included).
    if (!checkout) throw new NotFoundError('Customer not found.', `No customer ${body.customer_id} exists for this business.`);
    return checkout;
  };
  try {
    // Line items may add products first, in the same commit; without them one statement is the commit.
    const checkout = lines.length
      ? await deps.db.transaction(async (trx) => insert(trx, await recordLines(trx, merchant.id, lines)))
      : await insert(deps.db, []);
    return { checkout, clientSecret };
  } catch (error) {
    // Also when the customer was refused: the workflow was started for a checkout never recorded.
    await abandonCheckoutWorkflow(deps.temporal, id);
    throw error;
  }
}

/**
 * The checkout's id: the one derived from the request's Idempotency-Key (if any) unless a checkout
 * has it. A checkout younger than the key's IDEMPOTENCY_KEY_TTL_HOURS is the key's own, its stored
 * answer lost (the key row taken over or gone): never a second checkout. An older one was made
 * under an earlier use of the key, which has expired, so this request is a new one, with a new id.
 */
async function checkoutIdFor(db: Db, merchantId: string, derived: string | undefined): Promise<string> {
  const earlier = derived === undefined ? undefined : await findCheckout(db, merchantId, derived);
  if (!earlier) return derived ?? newId('checkout');
  if (earlier.created_at.getTime() > Date.now() - IDEMPOTENCY_KEY_TTL_HOURS * 3_600_000) throw idempotentCheckoutTaken(earlier.id);
  return newId('checkout');
}

/**
 * An id derived from an Idempotency-Key whose checkout already exists, though the key's stored
 * answer is gone (its first request failed after recording it): never a second checkout.
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
