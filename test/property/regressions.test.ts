/**
 * Counterexamples the property suite (test/property/stateful.test.ts) found against the code
 * shrunk and written out as plain tests of the behaviour decided (docs/decisions.md). Each test names
 * the invariant or prediction that caught it.
 */
import type { Service } from '../support/harness';
import { useServiceWithReceiver } from '../support/file-environment';
import { request } from '../support/http';
import type { WebhookReceiver } from '../support/receiver';
import { createActivities } from '../../activities';
import { signatureFromHeaders, verifySignature } from '../../src/webhooks/signature';
import { attempt, BANK, CARD, CRYPTO, createCheckout, getCharge, openShop, recordedEvents, waitFor, walletView, type Shop } from '../support/fixtures';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

const admin = (method: string, path: string, body?: unknown) => request(service.baseUrl, method, `/admin/v1${path}`, { token: service.adminToken, ...(body === undefined ? {} : { body }) });
const transition = (chargeId: string, to: string) => admin('POST', `/sandbox/charges/${chargeId}/transition`, { to });
const chargesOf = (checkoutId: string) => service.deps.db('charges').where({ checkout_id: checkoutId }).orderBy('created_at');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each shop answers holds as its own `holdAnswer` says (the receiver is shared, so answers are per checkout). */
const holdAnswers = new Map<string, number>();
beforeEach(() => {
  receiver.responder = (r) => ({ status: r.body?.type === 'checkout.hold' ? (holdAnswers.get(r.body?.data?.id) ?? 200) : 200 });
});

async function shop(settings: Record<string, unknown> = {}): Promise<Shop> {
  return openShop(service, { webhook_url: receiver.url, sandbox_settlement_seconds: 1, ...settings });
}

describe('checkouts, reviews, holds and refunds: regressions found by the property suite', () => {
  // Prediction attempt_answer ("one review per checkout") and invariant review_rule. Found with PROPERTY_SEED=1
  // PROPERTY_RUNS=60 PROPERTY_COMMANDS=25 PROPERTY_PATH=22 (ignoring the rules broken above), shrunk 20 times to:
  // review {enabled, 100}, hold answered 402; (setup) CreateCheckout(balance_withdrawal, 100);
  // AttemptWithMoveDuringHold(bank, 100) -> 202; ApproveReview -> hold refused, charge failed, checkout open;
  // Attempt(card 4242, 99) -> 201; ...; Attempt(card 4000000000000002, 100) -> 202 carrying the OLD approved
  // review, and its charge went on to the hold without a review of its own (unshrunk: the payout of card 9995
  // failed after an accepted hold, the next attempt was paid under the first approval).
  it('an attempt after an approved-but-failed withdrawal is refused, not paid under the old approval', async () => {
    const s = await shop({ review: { enabled: true, min_amount_cents: 100 } });
    const checkout = await createCheckout(service, s, { type: 'withdrawal', balance_amount_cents: 10_000 });
    holdAnswers.set(checkout.id, 402);
    const first = await attempt(service, checkout, { amount_cents: 500, payment_method: CARD() });
    expect(first.status).toBe(202);
    expect((await admin('POST', `/reviews/${first.body.review.id}/approve`)).status).toBe(200);
    const [failed] = await waitFor(async () => {
      const rows = await chargesOf(checkout.id);
      return rows.length === 1 && rows[0].status === 'failed' && rows;
    });
    expect((await walletView(service, checkout)).body.state).toBe('open');
    holdAnswers.set(checkout.id, 200);
    const pmRowsBefore = await service.deps.db('payment_methods').where({ customer_id: s.customerId }).count({ n: '*' });

    const second = await attempt(service, checkout, { amount_cents: 9_000, payment_method: CARD('5555555555554444') });
    expect(second.status).toBe(422);
    expect(second.body).toEqual({ error: 'This checkout already used its one review.', hint: expect.stringContaining('new checkout'), request_id: expect.any(String) });
    await sleep(1_500);
    expect((await chargesOf(checkout.id)).map((c) => c.id)).toEqual([failed.id]);
    expect(await service.deps.db('payment_methods').where({ customer_id: s.customerId }).count({ n: '*' })).toEqual(pmRowsBefore);
    const view = await walletView(service, checkout);
    expect(view.body.review).toEqual({ id: first.body.review.id, status: 'approved', amount_cents: 500, charge_id: failed.id });
    // Below the threshold the checkout still takes attempts.
    expect((await attempt(service, checkout, { amount_cents: 99, payment_method: CARD() })).status).toBe(201);
  });

  // Invariant review_rule: the same hole through a payout that fails after an accepted hold.
  // Shrunk: PatchSettings(review on, 100); CreateCheckout(preset_withdrawal, 2500); Attempt(card 4000000000000002) -> 202;
  // ApproveReview -> held -> payout declined (release_hold); Attempt(card 4242) -> paid with no review of its own.
  it('a preset withdrawal whose approved payout failed is not paid again without a review', async () => {
    const s = await shop({ review: { enabled: true, min_amount_cents: 100 } });
    const checkout = await createCheckout(service, s, { type: 'withdrawal', fixed_amount_cents: 2_500 });
    const first = await attempt(service, checkout, { payment_method: CARD('4000000000000002') });
    expect(first.status).toBe(202);
    await admin('POST', `/reviews/${first.body.review.id}/approve`);
    await waitFor(async () => (await chargesOf(checkout.id))[0]?.status === 'failed');
    const again = await attempt(service, checkout, { payment_method: CARD() });
    expect(again.status).toBe(422);
    await sleep(1_000);
    expect(await chargesOf(checkout.id)).toHaveLength(1);
  });

  // Invariant no_orphan_payment_method (and one_live_charge).
  // Shrunk: CreateCheckout(preset_deposit, 2500); ConcurrentAttempts(5 cards).
  it('concurrent attempts on one checkout make one charge and one payment method row', async () => {
    const s = await shop();
    const checkout = await createCheckout(service, s, { type: 'withdrawal', fixed_amount_cents: 2_500 });
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => attempt(service, checkout, { payment_method: CARD() })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 422)).toHaveLength(4);
    expect(await chargesOf(checkout.id)).toHaveLength(1);
    expect(await service.deps.db('payment_methods').where({ customer_id: s.customerId })).toHaveLength(1);
  });

  // Invariant no_orphan_payment_method, seed 20261122 path "1":
  // (setup) CreateCheckout(purchase, 5000); Attempt(bank 000123456789) -> 201 pending; Attempt(bank 000123450002) -> 422,
  // but the refused attempt had already written a payment_methods row.
  it('an attempt refused because a charge is pending writes no payment method', async () => {
    const s = await shop({ sandbox_settlement_seconds: 3 });
    const checkout = await createCheckout(service, s, { type: 'deposit', line_items: [{ name: 'Thing', price_cents: 5_000, quantity: 1 }] });
    const first = await attempt(service, checkout, { payment_method: BANK() });
    expect(first.body.charge.status).toBe('pending');
    const second = await attempt(service, checkout, { payment_method: BANK('000123450002') });
    expect(second.status).toBe(422);
    expect(await service.deps.db('payment_methods').where({ customer_id: s.customerId })).toHaveLength(1);
  });

  // Prediction move_during_hold, seed 20261122 path "32" (ignoring the rules above): with the merchant answering
  // holds 402, AttemptWithMoveDuringHold(balance withdrawal, card 4000000000000002, move to succeeded) -> the move
  // answered 200 and the withdrawal was paid although its hold was refused. Invariants debit_held_first and
  // hold_decides catch the same through moves to pending (the charge then stays pending beside new charges).
  it('a withdrawal refused at the hold is never paid by a move made while the hold was unanswered', async () => {
    const s = await shop();
    const checkout = await createCheckout(service, s, { type: 'withdrawal', balance_amount_cents: 100 });
    let move: Promise<Awaited<ReturnType<typeof transition>>> | undefined;
    receiver.responder = async (r) => {
      if (r.body?.type === 'checkout.hold' && r.body.data.id === checkout.id) {
        move = transition(r.body.data.charge.id, 'succeeded');
        await move;
        return { status: 402 };
      }
      return { status: 200 };
    };
    const res = await attempt(service, checkout, { amount_cents: 100, payment_method: CARD('4000000000000002') });
    expect((await move!).status).toBe(422);
    expect(res.body.charge).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
    expect((await walletView(service, checkout)).body.state).toBe('open');
  });

  // The same window, moves to pending, succeeded and held: refused, and the hold decides.
  // Invariant hold_once, seed 1 (ignoring the rules above): (setup) CreateCheckout(balance_withdrawal, 108);
  // AttemptWithMoveDuringHold(paypal, 50, move to held) -> the simulator sent a second checkout.hold.
  it.each(['pending', 'succeeded', 'held'])('a move to %s while the hold is unanswered is refused, and the hold decides', async (to) => {
    const s = await shop();
    const checkout = await createCheckout(service, s, { type: 'withdrawal', fixed_amount_cents: 2_500 });
    let move: Promise<Awaited<ReturnType<typeof transition>>> | undefined;
    receiver.responder = async (r) => {
      if (r.body?.type === 'checkout.hold' && r.body.data.id === checkout.id) {
        move = transition(r.body.data.charge.id, to);
        await move;
      }
      return { status: 200 };
    };
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(201);
    const moved = await move!;
    expect(moved.status).toBe(422);
    expect(moved.body.hint).toEqual(expect.any(String));
    await waitFor(async () => (await getCharge(service, s, res.body.charge.id)).body.status === 'succeeded');
    const types = (await recordedEvents(service, checkout.id)).map((e) => e.type);
    expect(types).toEqual(['checkout.hold', 'checkout.succeeded']);
    expect(receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.hold')).toHaveLength(1);
  });

  // A processor may fail a charge at any time, the hold's window included: the failure stands,
  // nothing is paid out, and since the merchant then accepts the hold, it is told to release it.
  it('a move to failed while the hold is unanswered stands, and the accepted hold is released', async () => {
    const s = await shop();
    const checkout = await createCheckout(service, s, { type: 'withdrawal', fixed_amount_cents: 2_500 });
    let moved: Awaited<ReturnType<typeof transition>> | undefined;
    receiver.responder = async (r) => {
      if (r.body?.type === 'checkout.hold' && r.body.data.id === checkout.id) moved = await transition(r.body.data.charge.id, 'failed');
      return { status: 200 };
    };
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(201);
    expect(moved!.status).toBe(200);
    expect(res.body.charge.status).toBe('failed');
    await waitFor(async () => (await recordedEvents(service, checkout.id)).some((e) => e.type === 'checkout.release_hold'));
    const types = (await recordedEvents(service, checkout.id)).map((e) => e.type);
    expect(types.filter((t) => t !== 'checkout.failed')).toEqual(['checkout.hold', 'checkout.release_hold']);
    expect(receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.hold')).toHaveLength(1);
    expect((await getCharge(service, s, res.body.charge.id)).body.status).toBe('failed');
  });

  // Invariant refund_row, seed 20261122 path "34" (with PROPERTY_IGNORE=no_orphan_payment_method,events_of_moves):
  // (setup) CreateCheckout(preset_deposit, 2500); Attempt(card 4000000000003220); Wait(500 ms); SimulatorMove(to refunded)
  // -> refunded with no refunds row. Prediction simulator_answer: the same move of a withdrawal or a bank deposit -> 200.
  it('the simulator refuses succeeded -> refunded for a withdrawal and a bank deposit, and records a refund for a card deposit', async () => {
    const s = await shop({ sandbox_settlement_seconds: 0, enabled_events: ['checkout.refunded'] });
    const withdrawal = await createCheckout(service, s, { type: 'withdrawal', fixed_amount_cents: 2_500 });
    const paidOut = await attempt(service, withdrawal, { payment_method: CARD() });
    await waitFor(async () => (await getCharge(service, s, paidOut.body.charge.id)).body.status === 'succeeded');
    const refusedDebit = await transition(paidOut.body.charge.id, 'refunded');
    expect(refusedDebit.status).toBe(422);
    expect(refusedDebit.body.hint).toEqual(expect.any(String));

    const bankDeposit = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 2_500 });
    const bank = await attempt(service, bankDeposit, { payment_method: BANK() });
    await waitFor(async () => (await getCharge(service, s, bank.body.charge.id)).body.status === 'succeeded');
    expect((await transition(bank.body.charge.id, 'refunded')).status).toBe(422);

    const cardDeposit = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 2_500 });
    const card = await attempt(service, cardDeposit, { payment_method: CARD() });
    const refunded = await transition(card.body.charge.id, 'refunded');
    expect(refunded.status).toBe(200);
    expect(refunded.body.status).toBe('refunded');
    const rows = await service.deps.db('refunds').where({ charge_id: card.body.charge.id });
    expect(rows).toHaveLength(1);
    expect(rows[0].source).toBe('processor');
    expect((await recordedEvents(service, cardDeposit.id)).map((e) => e.type)).toEqual(['checkout.succeeded', 'checkout.refunded']);
  });

  // Prediction of Refund(body amount) and invariant refund_answer.
  it('a refund with a body is refused with a hint; no body and {} are full refunds', async () => {
    const s = await shop();
    const pay = async () => {
      const checkout = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 2_500 });
      return (await attempt(service, checkout, { payment_method: CARD() })).body.charge.id as string;
    };
    const a = await pay();
    const withBody = await request(service.baseUrl, 'POST', `/api/v1/charges/${a}/refund`, { token: s.merchant.api_key, body: { amount_cents: 100 } });
    expect(withBody.status).toBe(422);
    expect(withBody.body).toEqual({ error: expect.any(String), hint: expect.stringContaining('full'), request_id: expect.any(String) });
    const adminWithBody = await admin('POST', `/charges/${a}/refund`, { amount_cents: 100 });
    expect(adminWithBody.status).toBe(422);
    expect((await getCharge(service, s, a)).body.status).toBe('succeeded');
    const empty = await request(service.baseUrl, 'POST', `/api/v1/charges/${a}/refund`, { token: s.merchant.api_key, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.status).toBe('refunded');
  });

  // Invariant refund_all_or_nothing and RefundRace's "one of the two loses cleanly".
  // Shrunk: CreateCheckout(preset_deposit, 2500); Attempt(card 4242); RefundRace(returned after 40-120 ms).
  // Also found: RefundRace(voided after 148 ms) and RefundRace(failed after 16 ms) answered the refund 200 with
  // status voided / failed.
  it.each([
    ['returned', 0], ['returned', 40], ['returned', 80], ['returned', 120], ['failed', 16], ['voided', 148],
  ] as const)('a refund racing a move to %s %i ms later: exactly one wins, and the answer tells the truth', async (to, delay) => {
    const s = await shop();
    const checkout = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 2_500 });
    const chargeId = (await attempt(service, checkout, { payment_method: CARD() })).body.charge.id as string;
    const [refund, move] = await Promise.all([
      request(service.baseUrl, 'POST', `/api/v1/charges/${chargeId}/refund`, { token: s.merchant.api_key }),
      sleep(delay).then(() => transition(chargeId, to)),
    ]);
    const final = (await getCharge(service, s, chargeId)).body.status;
    const refunds = await service.deps.db('refunds').where({ charge_id: chargeId });
    if (refund.status === 200) {
      expect(refund.body.status).toBe('refunded');
      expect(move.status).toBe(422);
      expect(final).toBe('refunded');
      expect(refunds).toHaveLength(1);
    } else {
      expect(refund.status).toBe(422);
      expect(move.status).toBe(200);
      expect(final).toBe(to);
      expect(refunds.filter((r) => r.status !== 'failed')).toHaveLength(0);
    }
  });

  // Invariant events_of_moves, seed 20261122 path "31" (with PROPERTY_IGNORE=no_orphan_payment_method):
  // (setup) CreateCheckout(preset_withdrawal, 5000); Attempt(bank 000123450002) -> created->held->pending->failed
  // recorded [checkout.pending, checkout.failed] and no checkout.release_hold.
  it('a held bank payout that fails from pending sends checkout.release_hold as well as the opt-in checkout.failed', async () => {
    const s = await shop({ enabled_events: ['checkout.failed'] });
    const checkout = await createCheckout(service, s, { type: 'withdrawal', balance_amount_cents: 5_000 });
    const res = await attempt(service, checkout, { amount_cents: 50, payment_method: BANK('000123450002') });
    await waitFor(async () => (await getCharge(service, s, res.body.charge.id)).body.status === 'failed');
    await sleep(300);
    const types = (await recordedEvents(service, checkout.id)).map((e) => e.type).sort();
    // checkout.pending (held -> pending) is recorded too, not enabled.
    expect(types).toEqual(['checkout.failed', 'checkout.hold', 'checkout.pending', 'checkout.release_hold']);
  });

  // Invariant no_charge_after_expiry: the first failure of `npm test`'s own seed (20261122, path "0"):
  // review {enabled, 5000}, expiry 8 s, hold answered 402; (setup) CreateCheckout(balance_withdrawal, 5000);
  // Attempt(bank, 4999) -> 201, hold refused; CreateCheckout(preset_deposit, 99); Attempt(card 3220, 5000) -> 202;
  // Refund(...); Wait(1500 ms); PatchSettings(review off); SimulatorMove(...); ApproveReview -> the withdrawal's
  // charge was made 6.3 s after the checkout's expires_at.
  it('expiry pauses while a review is pending; approval gives back the time that was left', async () => {
    const s = await shop({ review: { enabled: true, min_amount_cents: 100 }, checkout_expiry_seconds: 3, enabled_events: ['checkout.review.approved'] });
    const checkout = await createCheckout(service, s, { type: 'withdrawal', fixed_amount_cents: 2_500 });
    const created = Date.parse((await walletView(service, checkout)).body.expires_at);
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(202);
    const left = created - Date.now();
    await sleep(3_500);
    const paused = await walletView(service, checkout);
    expect(paused.body.state).toBe('in_review');
    expect(paused.body.expires_at).toBeNull();
    const decidedAt = Date.now();
    expect((await admin('POST', `/reviews/${res.body.review.id}/approve`)).status).toBe(200);
    const after = await walletView(service, checkout);
    const newExpiry = Date.parse(after.body.expires_at ?? (await service.deps.db('checkouts').where({ id: checkout.id }).first()).expires_at);
    expect(newExpiry).toBeGreaterThan(decidedAt + left - 1_000);
    expect(newExpiry).toBeLessThan(decidedAt + left + 2_000);
    const [charge] = await waitFor(async () => {
      const rows = await chargesOf(checkout.id);
      return rows.length > 0 && rows;
    });
    expect(new Date(charge.created_at).getTime()).toBeLessThanOrEqual(newExpiry);
    const approved = (await recordedEvents(service, checkout.id)).find((e) => e.type === 'checkout.review.approved')!;
    expect(JSON.parse(approved.body).data.expires_at).toEqual(expect.any(String));
  });
  // Invariant workflow_finishes, PROPERTY_SEED=59595 after 2,062 commands, shrunk to 4 steps:
  // Attempt(crypto deposit) -> pending; SimulatorMove(succeeded); SimulatorMove(voided); SubmitKyc. The
  // settling workflow then found the charge `voided`, not `succeeded`, and kept the checkout open until its
  // expiry although the database had completed it with the success.
  it.each(['voided', 'returned', 'failed'])('a pending deposit moved to succeeded and then %s by the processor completes its workflow', async (after) => {
    const s = await shop({ sandbox_settlement_seconds: 2, checkout_expiry_seconds: 120 });
    const checkout = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 1_500 });
    const res = await attempt(service, checkout, { payment_method: CRYPTO() });
    expect(res.status).toBe(201);
    expect(res.body.charge.status).toBe('pending');
    expect((await transition(res.body.charge.id, 'succeeded')).status).toBe(200);
    expect((await transition(res.body.charge.id, after)).status).toBe(200);
    const handle = service.deps.temporal.workflow.getHandle(checkout.id);
    // Settlement runs 2 s after the attempt; the checkout would otherwise stay open for 120 s.
    await expect(handle.result()).resolves.toEqual({ state: 'completed' });
    expect((await walletView(service, checkout)).body.state).toBe('completed');
  });

  // Invariant no_charge_after_expiry, PROPERTY_SEED=51676 after 2,457 commands: on a loaded machine an attempt
  // admitted just before expires_at reached the workflow's activity after it, and its charge was created
  // 1.83 s late. The activity now checks the deadline by the database's clock in the charge's own commit.
  it('an attempt whose activity runs after expires_at creates no charge; a retry still finds its own', async () => {
    const s = await shop({ checkout_expiry_seconds: 60 });
    const checkout = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 1_500 });
    const declined = await attempt(service, checkout, { payment_method: CARD('4000000000000002') });
    expect(declined.status).toBe(201);
    const [first] = await chargesOf(checkout.id);
    const activities = createActivities(service.deps);
    const request = { checkoutId: checkout.id, paymentMethodId: first.payment_method_id, amountCents: 1_500 };
    const retried = await activities.beginAttempt({ ...request, attemptKey: first.attempt_key });

    await service.deps.db('checkouts').where({ id: checkout.id }).update({ expires_at: new Date(Date.now() - 1_000) });
    const late = activities.beginAttempt({ ...request, attemptKey: `late-${checkout.id}` });
    await expect(late).rejects.toMatchObject({ type: 'CHECKOUT_CLOSED' });
    await expect(activities.createCharge({ ...request, attemptKey: `late2-${checkout.id}` })).rejects.toMatchObject({ type: 'CHECKOUT_CLOSED' });
    // The charge made before the deadline is found again by its attempt key.
    await expect(activities.createCharge({ ...request, attemptKey: first.attempt_key })).resolves.toMatchObject({ chargeId: first.id });
    expect(retried.charge).toMatchObject({ chargeId: first.id, status: 'failed' });
    expect(await chargesOf(checkout.id)).toHaveLength(1);
  });
  // Prediction attempt_answer, PROPERTY_SEED=83009 after 4,219 commands, shrunk 25 times (a false positive of
  // the model, kept as the rule it pins): geo required for deposits; Attempt(card failing Luhn) -> 422;
  // DevicePing(NYC); Attempt(bank) -> 201. Bad input is refused before the gates and blocks nothing.
  it('a card number failing Luhn is refused before the gates and leaves a gated checkout open', async () => {
    const s = await shop({ geo_required_for: ['deposit'], kyc_required_for: [] });
    const checkout = await createCheckout(service, s, { type: 'deposit' });
    const bad = await attempt(service, checkout, { amount_cents: 99, payment_method: CARD('4242424242424241') });
    expect(bad.status).toBe(422);
    expect((await walletView(service, checkout)).body.state).toBe('open');
    const ping = await request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/device_pings`, { body: { latitude: 40.7128, longitude: -74.006 }, headers: { 'x-client-secret': checkout.client_secret } });
    expect(ping.status).toBe(201);
    const paid = await attempt(service, checkout, { amount_cents: 99, payment_method: BANK() });
    expect(paid.status).toBe(201);
    expect(paid.body.charge.status).toBe('pending');
  });
});

describe('attempts while a charge is in progress: regressions found by the property suite', () => {
  // Prediction attempt_answer, PROPERTY_SEED=147503616 PROPERTY_PATH=192 (a checker error: the model took
  // a 422 on a gated checkout for a block even when the checkout was busy). Unshrunk: a pending bank
  // charge; KYC then required for deposits; a card attempt refused; the bank charge moved to failed;
  // KYC no longer required; the next attempt was charged where the model expected "blocked".
  it('an attempt refused because a charge is in progress does not reach the gates, so it never blocks the checkout', async () => {
    const s = await shop({ sandbox_settlement_seconds: 60 });
    const checkout = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 10_000 });
    const pending = await attempt(service, checkout, { payment_method: BANK() });
    expect(pending.body.charge.status).toBe('pending');
    expect((await admin('PATCH', `/merchants/${s.merchant.id}/settings`, { kyc_required_for: ['deposit'] })).status).toBe(200);

    const busy = await attempt(service, checkout, { payment_method: CARD() });
    expect(busy.status).toBe(422);
    expect(busy.body.error).not.toMatch(/blocked/);
    expect((await walletView(service, checkout)).body.state).not.toBe('blocked');
    expect(await recordedEvents(service, checkout.id)).not.toContainEqual(expect.objectContaining({ type: 'checkout.terminally_failed' }));

    expect((await transition(pending.body.charge.id, 'failed')).status).toBe(200);
    expect((await admin('PATCH', `/merchants/${s.merchant.id}/settings`, { kyc_required_for: [] })).status).toBe(200);
    // The move wakes the workflow, which was waiting out the charge's 60 s settlement time: the
    // checkout takes the next attempt within moments, not a minute later.
    const next = await waitFor(async () => {
      const res = await attempt(service, checkout, { payment_method: BANK() });
      return res.status === 201 && res;
    }, 10_000, 'the next attempt');
    expect(next.body.charge.status).toBe('pending');
    expect((await chargesOf(checkout.id)).map((c) => c.status)).toEqual(['failed', 'pending']);
  });
});

describe('secrets, deliveries, velocity and restrictions: regressions found by the property suite', () => {
  // Prediction secret_roll, seed 20261122 path 4 (`npm test`'s own seed, unshrunk 17 steps ending in
  // RollSecret(overlap 86400 s, twice, Idempotency-Key)): the retried roll, under the same key, rolled
  // again, so the merchant's deployed secret (from the first answer) became the previous one, and a
  // third roll would drop it.
  it('a roll retried with its Idempotency-Key answers the same secret; a second roll during the overlap is refused', async () => {
    const s = await shop();
    const roll = (headers: Record<string, string> = {}) => request(service.baseUrl, 'POST', `/admin/v1/merchants/${s.merchant.id}/webhook_secret/roll`, { token: service.adminToken, body: { overlap_seconds: 86_400 }, headers });
    const key = `roll-${s.merchant.id}`;
    const first = await roll({ 'idempotency-key': key });
    expect(first.status).toBe(201);
    const retried = await roll({ 'idempotency-key': key });
    expect(retried.status).toBe(201);
    expect(retried.body.webhook_signing_secret).toBe(first.body.webhook_signing_secret);

    const second = await roll();
    expect(second.status).toBe(422);
    expect(second.body).toEqual({ error: expect.any(String), hint: expect.any(String), request_id: expect.any(String) });
    // Deliveries are still signed with the secret the merchant deployed from the first answer.
    const checkout = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 1_500 });
    await attempt(service, checkout, { payment_method: CARD() });
    const delivery = await waitFor(() => receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.succeeded'), 20_000, 'checkout.succeeded');
    expect(() => verifySignature({ rawBody: delivery.rawBody, header: signatureFromHeaders(delivery.headers), secret: first.body.webhook_signing_secret })).not.toThrow();
  });

  // Invariant attempt_numbers, seed 20261122 path 6 (with PROPERTY_IGNORE=secret_roll), shrunk by hand
  // from 12 steps: a checkout.terminally_failed delivered at its first attempt, then Resend(event) ->
  // the log numbered its attempts 1, 1. With the merchant answering 500 to the resend, the event also
  // went from delivered to failed (invariant delivered_stays_delivered).
  it('a resend is a new series of the same event: attempts numbered on, and a delivered event stays delivered', async () => {
    const s = await shop({ enabled_events: ['checkout.refunded'] });
    const checkout = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 1_600 });
    const paid = await attempt(service, checkout, { payment_method: CARD() });
    expect(paid.status).toBe(201);
    const [event] = (await recordedEvents(service, checkout.id)).filter((e) => e.type === 'checkout.succeeded');
    await waitFor(async () => (await service.deps.db('events').where({ id: event!.id }).first()).delivery_status === 'delivered', 20_000, 'the first delivery');

    receiver.responder = () => ({ status: 500 });
    expect((await admin('POST', `/events/${event!.id}/resend`)).status).toBe(202);
    await waitFor(async () => (await service.deps.db('event_delivery_attempts').where({ event_id: event!.id })).length >= 3, 30_000, 'the resend to be tried');
    await sleep(500);
    const log = await admin('GET', `/events/${event!.id}`);
    expect(log.body.delivery_status).toBe('delivered');
    const numbers: number[] = log.body.attempts.map((a: { attempt: number }) => a.attempt);
    expect(new Set(numbers).size).toBe(numbers.length);
    // Not eligible for a failed_only replay: it was delivered.
    const replay = await admin('POST', '/events/replay', { merchant_id: s.merchant.id, failed_only: true, dry_run: true });
    expect(replay.body.event_ids).not.toContain(event!.id);
  });

  // Invariant card_velocity, PROPERTY_LONG seed 12161 path 2 (ignoring secret_roll, attempt_numbers), 14 steps
  // ending in SetVelocity(on, 2 per card per hour); GuessExpiry(card 4000000000000069, 3 expiry dates): the
  // third guess was admitted, its expiry date making it a "new" card for the limit.
  it('card velocity counts one card number whatever its expiry date', async () => {
    const s = await shop({ velocity_limits: { enabled: true, card_attempts_per_hour: 2, ip_attempts_per_hour: 100_000 } });
    const statuses: number[] = [];
    for (const [month, year] of [[12, 2030], [11, 2030], [9, 2031]] as const) {
      const checkout = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 2_500 });
      const card = { type: 'credit_card', card: { number: '4000000000000069', exp_month: month, exp_year: year, cvc: '123' } };
      statuses.push((await attempt(service, checkout, { payment_method: card })).status);
    }
    expect(statuses).toEqual([201, 201, 429]);
  });

  // Prediction restricted_attempt (then attempt_answer), PROPERTY_LONG seed 4242 path 9, 10 steps: at a
  // production merchant, Restrict(the preset withdrawal: kyc_required_for [withdrawal], KYC verified as
  // Byron) blocked the withdrawal and restricted the customer; a deposit of the same customer was then
  // paid (201, succeeded), the restriction being checked only where KYC is required.
  it('a restriction blocks every new charge of the customer, a deposit at a merchant requiring KYC for withdrawals only included', async () => {
    const s = await openShop(service, { webhook_url: receiver.url, kyc_required_for: ['withdrawal'] }, 'production');
    const kyc = await request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', {
      token: s.merchant.api_key,
      body: { customer_id: s.customerId, first_name: 'Ada', last_name: 'Byron', date_of_birth: '1985-12-10', address_line_1: '12 Main St', city: 'New York', state: 'NY', postal_code: '10001', country: 'USA', provider: 'persona', verified: true },
    });
    expect([200, 201]).toContain(kyc.status);
    const card = CARD('5555555555554444');
    const withdrawal = await createCheckout(service, s, { type: 'withdrawal', fixed_amount_cents: 900 });
    const blocked = await attempt(service, withdrawal, { payment_method: card });
    expect(blocked.status).toBe(422);
    expect((await service.deps.db('customers').where({ id: s.customerId }).first()).restriction_reason).toBe('KYC_DOES_NOT_MATCH_PROFILE_NAME');

    const deposit = await createCheckout(service, s, { type: 'deposit', fixed_amount_cents: 2_500 });
    const refused = await attempt(service, deposit, { payment_method: card });
    expect(refused.status).toBe(422);
    expect(await chargesOf(deposit.id)).toHaveLength(0);
  });

  // Invariant release_after_success, PROPERTY_LONG seed 39256 path 2 (ignoring the rules above), 5 steps:
  // (setup) CreateCheckout(balance_withdrawal, 5000); Attempt(card 4000000000003220, 4999) -> held, then
  // succeeded; SimulatorMove(to failed) recorded checkout.release_hold after checkout.succeeded: a merchant
  // crediting the released hold and the reversed payout would credit the customer twice.
  it('a payout reversed after success sends checkout.failed, never checkout.release_hold', async () => {
    const s = await shop({ enabled_events: ['checkout.failed'] });
    const checkout = await createCheckout(service, s, { type: 'withdrawal', balance_amount_cents: 5_000 });
    const paid = await attempt(service, checkout, { amount_cents: 4_999, payment_method: CARD('4000000000003220') });
    expect(paid.status).toBe(201);
    await waitFor(async () => (await getCharge(service, s, paid.body.charge.id)).body.status === 'succeeded', 20_000, 'the payout');
    expect((await transition(paid.body.charge.id, 'failed')).status).toBe(200);
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.failed'), 20_000, 'checkout.failed');
    await sleep(1_000);
    expect((await recordedEvents(service, checkout.id)).map((e) => e.type)).toEqual(['checkout.hold', 'checkout.succeeded', 'checkout.failed']);
    expect(receiver.forCheckout(checkout.id).map((r) => r.body.type)).not.toContain('checkout.release_hold');
  });
  // Prediction attempt_answer, PROPERTY_LONG seed 779191, shrunk to 6 steps (a false positive of the
  // model): at a production merchant requiring KYC for withdrawals, with a verified KYC name that
  // differs from the profile, an attempt of 300 cents on a balance withdrawal of 100 was refused for
  // its amount; the model took that refusal for the gates' and expected the checkout blocked. An
  // attempt the checkout refuses by itself never reaches the gates: the checkout stays open, and
  // after a restriction (made by another checkout's attempt) is lifted, it takes an attempt.
  it('an attempt refused for its amount never reaches the gates: the checkout stays open and pays once the restriction is lifted', async () => {
    const s = await openShop(service, {
      webhook_url: receiver.url,
      review: { enabled: true, min_amount_cents: 100 },
      sandbox_hold_seconds: 0,
      payment_methods: { deposit: ['credit_card'], withdrawal: ['credit_card', 'apple_pay'] },
    }, 'production');
    const balance = await createCheckout(service, s, { type: 'withdrawal', balance_amount_cents: 100 });
    const preset = await createCheckout(service, s, { type: 'withdrawal', fixed_amount_cents: 99 });
    expect((await admin('PATCH', `/merchants/${s.merchant.id}/settings`, { kyc_required_for: ['withdrawal'] })).status).toBe(200);
    const kyc = await request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', {
      token: s.merchant.api_key,
      body: { customer_id: s.customerId, first_name: 'Ada', last_name: 'Byron', date_of_birth: '1985-12-10', address_line_1: '12 Main St', city: 'New York', state: 'NY', postal_code: '10001', country: 'USA', provider: 'persona', verified: true },
    });
    expect([200, 201]).toContain(kyc.status);
    const customer = () => service.deps.db('customers').where({ id: s.customerId }).first();

    const overBalance = await attempt(service, balance, { amount_cents: 300, payment_method: CARD('5555555555554444') });
    expect(overBalance.status).toBe(422);
    expect((await walletView(service, balance)).body.state).toBe('open');
    expect((await customer()).restriction_reason).toBeNull();

    const blocked = await attempt(service, preset, { payment_method: CARD('5555555555554444') });
    expect(blocked.status).toBe(422);
    expect((await customer()).restriction_reason).toBe('KYC_DOES_NOT_MATCH_PROFILE_NAME');
    expect((await walletView(service, preset)).body.state).toBe('blocked');

    expect((await request(service.baseUrl, 'PATCH', `/api/v1/customers/${s.customerId}`, { token: s.merchant.api_key, body: { last_name: 'Byron' } })).status).toBe(200);
    expect((await admin('POST', `/customers/${s.customerId}/unrestrict`)).status).toBe(200);
    const paid = await attempt(service, balance, { amount_cents: 99, payment_method: { type: 'apple_pay', token: 'tok_apple_pay_1234' } });
    expect(paid.status).toBe(201);
    expect(paid.body.charge).toMatchObject({ amount_cents: 99, transaction_type: 'debit' });
    expect(await chargesOf(preset.id)).toHaveLength(0);
  });
});
