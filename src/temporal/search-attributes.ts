import { TypedSearchAttributes } from '@temporalio/common';
import { MerchantIdAttribute } from '../../workflows/contract';

/**
 * Delivery and refund workflows carry the merchant's search attribute like checkouts do, so
 * filtering by MerchantId in the Temporal UI shows everything of that merchant's.
 */
export function merchantSearchAttributes(merchantId: string | undefined): TypedSearchAttributes | undefined {
  return merchantId ? new TypedSearchAttributes([{ key: MerchantIdAttribute, value: merchantId }]) : undefined;
}
