// The checkout creation rules of the contract as pure functions: which flow a body is (rules 1
// and 2), whether the account allows it (rule 3), which payment methods it offers (rules 4 and
// 5), and how line items become lines with totals. No I/O, so every rule is unit tested.
import { CHECKOUT_FLOWS, type CheckoutFlow, type CheckoutType, type PaymentMethodId } from '../domain/settings';
import { PAYMENT_TYPE_FOR_METHOD, type PaymentType } from '../processors/types';
import type { LineItemKind } from '../storage/checkouts';
import { MAX_AMOUNT_CENTS } from '../domain/limits';
import type { CheckoutCreateBody } from './schemas';

/** A refusal the service turns into a 422 `{error, hint}`. */
export interface Refusal {
  error: string;
  hint: string;
}

/** The parameters of each row of the contract's flow table, as the hints name them. */
export const FLOW_PARAMETERS: Record<CheckoutFlow, string> = {
  deposit: 'type deposit with no amount field',
  preset_deposit: 'type deposit with fixed_amount_cents',
  purchase: 'type deposit with line_items',
  subscription: 'type deposit with line_items and subscription_data',
  balance_withdrawal: 'type withdrawal with balance_amount_cents',
  preset_withdrawal: 'type withdrawal with fixed_amount_cents',
};

export function describeFlows(flows: readonly CheckoutFlow[]): string {
  return flows.map((flow) => `${flow} (${FLOW_PARAMETERS[flow]})`).join('; ');
}

export type FlowShape = Pick<CheckoutCreateBody, 'type' | 'line_items' | 'subscription_data' | 'fixed_amount_cents' | 'balance_amount_cents'>;

/** Rules 1 and 2: exactly one row of the flow table applies, or the body is refused. */
export function detectFlow(body: FlowShape): { flow: CheckoutFlow } | Refusal {
  const problem = body.type === 'deposit' ? depositProblem(body) : withdrawalProblem(body);
  if (problem) {
    return {
      error: `Unsupported parameter combination: ${problem}.`,
      hint: `A checkout is exactly one of these flows: ${describeFlows(CHECKOUT_FLOWS)}.`,
    };
  }
  return { flow: flowOf(body) };
}

function depositProblem(body: FlowShape): string | null {
  if (body.balance_amount_cents !== undefined) return 'a deposit never takes balance_amount_cents';
  if (body.fixed_amount_cents !== undefined && body.line_items !== undefined) {
    return 'a deposit takes fixed_amount_cents or line_items, never both';
  }
  if (body.subscription_data !== undefined && body.line_items === undefined) return 'subscription_data requires line_items';
  return null;
}

function withdrawalProblem(body: FlowShape): string | null {
  if (body.line_items !== undefined) return 'a withdrawal never takes line_items';
  if (body.subscription_data !== undefined) return 'a withdrawal never takes subscription_data';
  if (body.fixed_amount_cents !== undefined && body.balance_amount_cents !== undefined) {
    return 'a withdrawal takes balance_amount_cents or fixed_amount_cents, never both';
  }
  if (body.fixed_amount_cents === undefined && body.balance_amount_cents === undefined) {
    return 'a withdrawal requires balance_amount_cents or fixed_amount_cents';
  }
  return null;
}

/** Only called on a body that passed the rules above, so each branch is unambiguous. */
function flowOf(body: FlowShape): CheckoutFlow {
  if (body.type === 'withdrawal') return body.balance_amount_cents !== undefined ? 'balance_withdrawal' : 'preset_withdrawal';
  if (body.subscription_data !== undefined) return 'subscription';
  if (body.line_items !== undefined) return 'purchase';
  return body.fixed_amount_cents !== undefined ? 'preset_deposit' : 'deposit';
}

/** Rule 3: the account's checkout_flows setting decides which flows it may use. */
export function flowNotEnabled(flow: CheckoutFlow, enabled: readonly CheckoutFlow[]): Refusal | null {
  if (enabled.includes(flow)) return null;
  return {
    error: `Unsupported parameter combination: the ${flow} flow is not enabled for this account.`,
    hint: enabled.length
      ? `Flows enabled for this account: ${describeFlows(enabled)}.`
      : 'No checkout flow is enabled for this account; contact the service operator.',
  };
}

/**
 * Rule 4: every requested method must be enabled for the account and checkout type. Unknown
 * identifiers are reported the same way: the merchant's fix is the same (pick from the hint).
 * Answers the options to store: the request's, or null for the default (every enabled method).
 */
export function acceptPaymentOptions(
  requested: readonly string[] | undefined,
  type: CheckoutType,
  enabled: readonly PaymentMethodId[],
): { paymentOptions: PaymentMethodId[] | null } | Refusal {
  const hint = enabled.length
    ? `Payment methods enabled for ${type} checkouts on this account: ${enabled.join(', ')}.`
    : `No payment method is enabled for ${type} checkouts on this account; contact the service operator.`;
  if (requested === undefined) {
    // The default offers every enabled method, so with none enabled the checkout could take no payment.
    return enabled.length ? { paymentOptions: null } : { error: `No payment method is enabled for ${type} checkouts.`, hint };
  }
  const offending = requested.filter((method) => !isEnabled(method, enabled));
  if (offending.length) return { error: `Unsupported payment_options: ${offending.join(', ')}.`, hint };
  return { paymentOptions: requested.filter((method) => isEnabled(method, enabled)) };
}

function isEnabled(method: string, enabled: readonly PaymentMethodId[]): method is PaymentMethodId {
  return (enabled as readonly string[]).includes(method);
}

/**
 * The methods a checkout offers, for the wallet: the request's payment_options, or by default
 * every enabled method. Intersected with the current settings so a method the operator has
 * since turned off is not offered by an older checkout.
 */
export function offeredPaymentMethods(paymentOptions: readonly string[] | null, enabled: readonly PaymentMethodId[]): PaymentMethodId[] {
  if (!paymentOptions) return [...enabled];
  // In the merchant's order: the page lists methods as the merchant asked.
  return paymentOptions.filter((method): method is PaymentMethodId => (enabled as readonly string[]).includes(method));
}

/** Rule 5: saved payment methods of a type the checkout does not offer are hidden. */
export function visibleSavedMethods<T extends { payment_type: PaymentType }>(saved: readonly T[], offered: readonly PaymentMethodId[]): T[] {
  const types = new Set<PaymentType>(offered.map((method) => PAYMENT_TYPE_FOR_METHOD[method]));
  return saved.filter((method) => types.has(method.payment_type));
}

/** The contract's two reserved SKUs; matched exactly, as the contract spells them. */
export function lineItemKind(sku: string | null | undefined): LineItemKind {
  return sku === 'shipping' || sku === 'tax' ? sku : 'product';
}

/** Line totals in integer cents, and the refusal when the sum passes the per-checkout maximum. */
export function lineItemsTotal(lines: readonly { price_cents: number; quantity: number }[]): { total: number } | Refusal {
  const total = lines.reduce((sum, line) => sum + line.price_cents * line.quantity, 0);
  if (total <= MAX_AMOUNT_CENTS) return { total };
  return {
    error: `Line items total ${total} cents, above the maximum of ${MAX_AMOUNT_CENTS} cents per checkout.`,
    hint: 'Split the purchase into several checkouts or lower the quantities.',
  };
}

export function isRefusal<T extends object>(value: T | Refusal): value is Refusal {
  return 'error' in value;
}
