import { buildTimeline, type TimelineInputs } from '../../src/admin/timeline';
import type { RefundRow } from '../../src/storage/refunds';

const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 12, 0, s));
const checkout = { id: 'chk_1', type: 'deposit', flow: 'preset_deposit', state: 'completed', created_at: at(0), updated_at: at(5), expires_at: at(1800) } as unknown as TimelineInputs['checkout'];
const refund = (id: string, status: RefundRow['status'], s: number) => ({ id, charge_id: 'ch_1', amount_cents: 2500, source: 'api', status, created_at: at(s) }) as unknown as RefundRow;

describe('the admin checkout timeline', () => {
  // Audit finding: a refund's claim (its pending row, written before the processor is asked) read
  // like a refund made, though no money had moved and a decline deletes it.
  it('tells a refund in progress from one made', () => {
    const entries = buildTimeline({ checkout, charges: [], review: null, events: [], attempts: [], series: [], geoChecks: [], refunds: [refund('re_done', 'succeeded', 10), refund('re_claim', 'pending', 20)] });
    const refunds = entries.filter((e) => e.kind === 'refund');
    expect(refunds.map((e) => e.summary)).toEqual(['Refund re_done of charge ch_1 (2500 cents, from api)', 'Refund re_claim of charge ch_1 in progress (2500 cents, from api)']);
    expect(refunds.map((e) => [e.details.status, e.details.amount_cents])).toEqual([['succeeded', 2500], ['pending', 2500]]);
  });
});
