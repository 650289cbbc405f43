/**
 * Names both sides of Temporal share: the workflow code and the client code (API server, tests)
 * import them from here, so a signal, update or search attribute can never be misspelt on one side.
 * This file must stay free of Node built-ins: it is bundled into the workflow sandbox.
 */
import { defineSearchAttributeKey } from '@temporalio/common';

export const DEFAULT_TASK_QUEUE = 'payments';

/** Search attributes the Temporal Web UI filters checkouts by (registered on the dev server at start). */
export const MerchantIdAttribute = defineSearchAttributeKey('MerchantId', 'KEYWORD');
export const CustomerIdAttribute = defineSearchAttributeKey('CustomerId', 'KEYWORD');
export const CheckoutTypeAttribute = defineSearchAttributeKey('CheckoutType', 'KEYWORD');

export const SEARCH_ATTRIBUTES = [MerchantIdAttribute, CustomerIdAttribute, CheckoutTypeAttribute];
