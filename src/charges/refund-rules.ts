import type { ChargeRow } from '../storage/charges';
import { FAILURE_TYPES } from '../../workflows/contract';
import { isCardLike } from '../processors';
import { REFUND_CAPABLE_PROCESSORS } from '../domain/settings';

export type RefundRefusal = { type: string; message: string };

/**
 * The contract's refund rules as one pure function, checked by the API before it starts the
 * refund workflow and again inside it: credit card deposits only, succeeded, through a refund-capable processor.
 */
export function refundRefusal(charge: Pick<ChargeRow, 'transaction_type' | 'status' | 'processor'>, paymentType: string): RefundRefusal | null {
  if (charge.transaction_type !== 'credit') return { type: FAILURE_TYPES.chargeNotRefundable, message: 'Only credit charges can be refunded.' };
  if (charge.status !== 'succeeded') return { type: FAILURE_TYPES.chargeNotSucceeded, message: 'Unable to refund charge.' };
  // Bank-rail and crypto deposits have no refund path; gamma cannot refund at all.
  if (!isCardLike(paymentType) || !REFUND_CAPABLE_PROCESSORS.has(charge.processor)) {
    return { type: FAILURE_TYPES.refundUnsupported, message: 'Refund through this processor is not possible now.' };
  }
  return null;
}
