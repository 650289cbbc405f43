import { slotFreedByAnswer } from '../../src/wallet/attempts';
import type { ChargeAnswer } from '../../src/charges/present';

/**
 * The wallet frees an attempt's slot itself unless the charge's insert already did. Only the
 * activity that frees it in that insert answers with the charge, so a charge answered without it
 * (a worker or workflow from before, in a rolling deploy) must still be released, or the
 * checkout's next attempt would be refused as "in progress" until the slot timed out.
 */
describe('who frees the attempt slot', () => {
  const charge = { id: 'ch_1' } as unknown as ChargeAnswer;

  it('is the charge insert when the answer carries the charge', () => {
    expect(slotFreedByAnswer({ kind: 'charge', chargeId: 'ch_1', charge })).toBe(true);
  });

  it('is the wallet for a charge answered by an older worker or workflow, a review, or no answer', () => {
    expect(slotFreedByAnswer({ kind: 'charge', chargeId: 'ch_1' })).toBe(false);
    expect(slotFreedByAnswer({ kind: 'review', reviewId: 'rev_1' })).toBe(false);
    expect(slotFreedByAnswer(undefined)).toBe(false);
  });
});
