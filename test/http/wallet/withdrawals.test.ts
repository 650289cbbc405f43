import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, BANK, CARD, createCheckout, getCharge, openShop, recordedEvents, waitFor, walletView, type Shop } from '../../support/fixtures';
import { verifySignature } from '../../../src/webhooks/signature';
import { decideReviewUpdate } from '../../../workflows/contract';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

async function withdrawalShop(settings: Record<string, unknown> = {}): Promise<Shop> {
  return openShop(service, { webhook_url: receiver.url, sandbox_settlement_seconds: 1, ...settings });
}

describe('the hold handshake', () => {
  it('answered 200: the charge is held, then paid out (card: succeeded), checkout.hold signed and sent once', async () => {
    const shop = await withdrawalShop();
    receiver.responder = () => ({ status: 200 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', balance_amount_cents: 50_000 });
    const res = await attempt(service, checkout, { amount_cents: 20_000, payment_method: CARD() });
    expect(res.status).toBe(201);
    expect(['held', 'succeeded']).toContain(res.body.charge.status);
    expect(res.body.charge.transaction_type).toBe('debit');
    const done = await waitFor(async () => {
      const c = await getCharge(service, shop, res.body.charge.id);
      return c.body.status === 'succeeded' && c.body;
    });
    expect(done.amount_cents).toBe(20_000);
    // The customer as the charge shows it.
    expect(res.body.charge.customer).toEqual(done.customer);

    const holds = receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.hold');
    expect(holds).toHaveLength(1);
    const hold = holds[0]!;
    expect(Object.keys(hold.body)).toEqual(['event_id', 'data', 'type']);
    expect(hold.body.data).toMatchObject({ id: checkout.id, type: 'withdrawal', subscription: null });
    expect(hold.body.data.charge).toMatchObject({ status: 'held', from_status: 'created', transaction_type: 'debit' });
    const header = hold.headers['service-webhook-signature'] as string;
    expect(hold.headers['service_signature']).toBe(header);
    expect(() => verifySignature({ rawBody: hold.rawBody, header, secret: shop.merchant.webhook_signing_secret })).not.toThrow();

    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.succeeded'));
    const types = (await recordedEvents(service, checkout.id)).map((e) => e.type);
    expect(types).toEqual(['checkout.hold', 'checkout.succeeded']);
    expect((await walletView(service, checkout)).body.state).toBe('completed');
  });

  it('answered 402: the charge fails while created with insufficient_funds; checkout.failed (when enabled), never release_hold', async () => {
    const shop = await withdrawalShop({ enabled_events: ['checkout.failed'] });
    receiver.responder = (r) => ({ status: r.body?.type === 'checkout.hold' ? 402 : 200 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 3000 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.body.charge).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.failed'));
    const failed = receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.failed')!;
    expect(failed.body.data.charge).toMatchObject({ status: 'failed', from_status: 'created' });
    expect(receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.hold')).toHaveLength(1);
    const types = (await recordedEvents(service, checkout.id)).map((e) => e.type);
    expect(types).toEqual(['checkout.hold', 'checkout.failed']);
    expect(types).not.toContain('checkout.release_hold');
    expect((await walletView(service, checkout)).body.state).toBe('open'); // the customer may try again
  });

  it('not answered within 10 seconds: the charge fails, and the hold is never retried', async () => {
    const shop = await withdrawalShop();
    receiver.responder = (r) => (r.body?.type === 'checkout.hold' ? { status: 200, delayMs: 12_000 } : { status: 200 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 3000 });
    const started = Date.now();
    const res = await attempt(service, checkout, { payment_method: CARD() });
    const elapsed = Date.now() - started;
    expect(res.body.charge).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
    expect(elapsed).toBeGreaterThanOrEqual(9_500);
    // 10 s and no retry: a retried hold would take 20 s or more (the margin absorbs a loaded CI machine).
    expect(elapsed).toBeLessThan(19_000);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.hold')).toHaveLength(1);
    const [holdEvent] = await recordedEvents(service, checkout.id);
    const attempts = await service.deps.db('event_delivery_attempts').where({ event_id: holdEvent!.id });
    expect(attempts).toHaveLength(1);
    expect(attempts[0].error).toContain('timed out');
  }, 30_000);

  // Audit regression: the merchant's 200 arrived at once but its body was still streaming at 10 s,
  // and the attempt was counted a timeout: a hold the merchant had accepted (its status said so)
  // failed the charge with insufficient_funds and checkout.failed, never a release of the funds.
  it('answered 200 at once with a body that is still streaming at 10 s: the status is the answer, the hold is accepted', async () => {
    const streaming = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('accepted');
        const tick = setInterval(() => res.write('.'), 500);
        setTimeout(() => (clearInterval(tick), res.end()), 12_000);
        res.on('close', () => clearInterval(tick));
      });
    });
    await new Promise<void>((resolve) => streaming.listen(0, '127.0.0.1', resolve));
    try {
      const shop = await withdrawalShop({ webhook_url: `http://127.0.0.1:${(streaming.address() as AddressInfo).port}/hooks` });
      const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 3000 });
      const res = await attempt(service, checkout, { payment_method: CARD() });
      expect(res.status).toBe(201);
      expect(['held', 'succeeded']).toContain(res.body.charge.status);
      const [holdEvent] = await recordedEvents(service, checkout.id);
      const attempts = await service.deps.db('event_delivery_attempts').where({ event_id: holdEvent!.id });
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ http_status: 200, error: null });
      expect(attempts[0].response_excerpt).toMatch(/^accepted/);
    } finally {
      streaming.closeAllConnections();
      await new Promise((resolve) => streaming.close(resolve));
    }
  }, 30_000);

  it('with no webhook_url: the charge fails with insufficient_funds', async () => {
    const shop = await openShop(service);
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 3000 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.body.charge).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
  });

  it('a held card payout that fails sends checkout.release_hold, not checkout.failed', async () => {
    const shop = await withdrawalShop({ enabled_events: ['checkout.failed'] });
    receiver.responder = () => ({ status: 200 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 3000 });
    const res = await attempt(service, checkout, { payment_method: CARD('4000000000000002') });
    const failed = await waitFor(async () => {
      const c = await getCharge(service, shop, res.body.charge.id);
      return c.body.status === 'failed' && c.body;
    });
    expect(failed.failure_code).toBe('card_declined');
    const types = (await recordedEvents(service, checkout.id)).map((e) => e.type);
    expect(types).toEqual(['checkout.hold', 'checkout.release_hold']);
  });

  it('bank payouts go held -> pending -> succeeded after the hold and settlement periods', async () => {
    const shop = await withdrawalShop({ sandbox_hold_seconds: 1, enabled_events: ['checkout.pending'] });
    receiver.responder = () => ({ status: 200 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', balance_amount_cents: 9_000 });
    const res = await attempt(service, checkout, { amount_cents: 9_000, payment_method: BANK() });
    expect(res.body.charge.status).toBe('held');
    await waitFor(async () => (await getCharge(service, shop, res.body.charge.id)).body.status === 'succeeded');
    const moves = (await recordedEvents(service, checkout.id)).map((e) => `${e.type}:${JSON.parse(e.body).data.charge.from_status}`);
    expect(moves).toEqual(['checkout.hold:created', 'checkout.pending:held', 'checkout.succeeded:pending']);
  });

  it('refuses an amount above balance_amount_cents', async () => {
    const shop = await withdrawalShop();
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', balance_amount_cents: 1000 });
    const res = await attempt(service, checkout, { amount_cents: 1001, payment_method: CARD() });
    expect(res.status).toBe(422);
    expect(res.body.hint).toContain('1000');
  });
});

describe('manual review', () => {
  const admin = (method: string, path: string) => request(service.baseUrl, method, `/admin/v1${path}`, { token: service.adminToken });

  it('pauses a withdrawal with no charge; approval creates the charge and places the hold', async () => {
    const shop = await withdrawalShop({ review: { enabled: true, min_amount_cents: 5000 }, enabled_events: ['checkout.review.created', 'checkout.review.approved'] });
    receiver.responder = () => ({ status: 200 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', balance_amount_cents: 10_000 });
    const res = await attempt(service, checkout, { amount_cents: 6000, payment_method: CARD() });
    expect(res.status).toBe(202);
    expect(res.body.review).toMatchObject({ status: 'pending', amount_cents: 6000 });
    expect(res.body.review.id).toMatch(/^cpilr_/);
    expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(0);
    expect((await walletView(service, checkout)).body.state).toBe('in_review');
    expect((await attempt(service, checkout, { amount_cents: 100, payment_method: CARD() })).status).toBe(422);

    const pending = await admin('GET', `/reviews?status=pending&merchant_id=${shop.merchant.id}`);
    expect(pending.body.results).toEqual([
      expect.objectContaining({ id: res.body.review.id, checkout_id: checkout.id, merchant_id: shop.merchant.id, customer_id: shop.customerId, amount_cents: 6000, status: 'pending', created_at: expect.any(String) }),
    ]);

    const approved = await admin('POST', `/reviews/${res.body.review.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('approved');
    expect((await admin('POST', `/reviews/${res.body.review.id}/approve`)).status).toBe(422);
    expect((await admin('POST', `/reviews/${res.body.review.id}/decline`)).status).toBe(422);

    await waitFor(async () => (await walletView(service, checkout)).body.state === 'completed');
    const types = (await recordedEvents(service, checkout.id)).map((e) => e.type);
    expect(types).toEqual(['checkout.review.created', 'checkout.review.approved', 'checkout.hold', 'checkout.succeeded']);
    const created = receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.review.created');
    expect(created?.body.data.type).toBe('withdrawal');
  });

  it('refuses any field in the body of a decision (422, unknown field) and leaves the review pending', async () => {
    const shop = await withdrawalShop({ review: { enabled: true, min_amount_cents: 1 } });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
    const review = (await attempt(service, checkout, { payment_method: CARD() })).body.review;
    const decide = (decision: string, body: unknown) => request(service.baseUrl, 'POST', `/admin/v1/reviews/${review.id}/${decision}`, { token: service.adminToken, body });
    for (const [decision, body] of [['approve', { foo: 1 }], ['decline', { reason: 'too much' }], ['approve', [1]]] as const) {
      const res = await decide(decision, body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ request_id: expect.any(String), error: expect.stringMatching(/^Request body is invalid/), hint: expect.any(String) });
    }
    expect((await decide('decline', { reason: 'x' })).body.hint).toContain('unknown field(s): reason');
    expect((await service.deps.db('reviews').where({ id: review.id }).first()).status).toBe('pending');
    expect((await walletView(service, checkout)).body.state).toBe('in_review');
    const declined = await decide('decline', {});
    expect(declined.status).toBe(200);
    expect(declined.body.status).toBe('declined');
  });

  it('decline: no charge is ever created; no checkout.failed or release_hold; optional events only when enabled', async () => {
    const shop = await withdrawalShop({ review: { enabled: true, min_amount_cents: 1 }, enabled_events: ['checkout.failed', 'checkout.terminally_failed'] });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(202);
    const declined = await admin('POST', `/reviews/${res.body.review.id}/decline`);
    expect(declined.body.status).toBe('declined');
    expect((await admin('POST', `/reviews/${res.body.review.id}/approve`)).status).toBe(422);
    expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(0);
    expect((await walletView(service, checkout)).body.state).toBe('blocked');
    const events = await recordedEvents(service, checkout.id);
    expect(events.map((e) => [e.type, e.enabled])).toEqual([
      ['checkout.review.created', false],
      ['checkout.review.declined', false],
      ['checkout.terminally_failed', true],
    ]);
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(422);
  });

  it('three reviewers making the same decision at the same moment: one 200, the others 422', async () => {
    const shop = await withdrawalShop({ review: { enabled: true, min_amount_cents: 1 } });
    receiver.responder = () => ({ status: 200 });
    for (const decision of ['approve', 'decline'] as const) {
      const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
      const review = (await attempt(service, checkout, { payment_method: CARD() })).body.review;
      const answers = await Promise.all(
        [1, 2, 3].map(() => request(service.baseUrl, 'POST', `/admin/v1/reviews/${review.id}/${decision}`, { token: service.adminToken })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 422, 422]);
      for (const loser of answers.filter((a) => a.status === 422)) expect(loser.body.error).toBe('Review already decided.');
      const stored = await service.deps.db('reviews').where({ id: review.id }).first();
      expect(stored.status).toBe(decision === 'approve' ? 'approved' : 'declined');
      if (decision === 'approve') await waitFor(async () => (await walletView(service, checkout)).body.state === 'completed');
      expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(decision === 'approve' ? 1 : 0);
    }
  });

  // Audit regression: a review is listed (its row committed) a moment before the checkout's workflow
  // learns it exists, and a decision sent in between was refused by the workflow as a second one:
  // 422 "Review already decided ... is pending" for a review nobody had decided (6 of 10 here).
  it('a decision sent as soon as the review is listed decides it', async () => {
    const shop = await withdrawalShop({ review: { enabled: true, min_amount_cents: 1 } });
    receiver.responder = () => ({ status: 200 });
    for (let round = 0; round < 8; round++) {
      const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
      const paying = attempt(service, checkout, { payment_method: CARD() });
      // Polled without a pause, as a reviewer's tool watching the queue would see it.
      let review;
      while (!(review = await service.deps.db('reviews').where({ checkout_id: checkout.id }).first())) await new Promise((r) => setImmediate(r));
      const decision = round % 2 === 0 ? 'approve' : 'decline';
      const decided = await admin('POST', `/reviews/${review.id}/${decision}`);
      expect(`${decided.status} ${decided.body.status ?? decided.body.hint}`).toBe(`200 ${decision === 'approve' ? 'approved' : 'declined'}`);
      expect((await paying).status).toBe(202);
      await waitFor(async () => ['completed', 'blocked'].includes((await walletView(service, checkout)).body.state));
    }
  });

  // Audit regression: an approval charged whatever the attempt had been, days before: a customer
  // restricted meanwhile was paid out because a reviewer approved the old attempt.
  it('refuses an approval for a customer restricted since the attempt; the review stays pending until the restriction is lifted', async () => {
    const shop = await withdrawalShop({ review: { enabled: true, min_amount_cents: 1 }, enabled_events: ['checkout.review.approved', 'checkout.review.declined', 'checkout.terminally_failed', 'checkout.failed'] });
    receiver.responder = () => ({ status: 200 });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
    const review = (await attempt(service, checkout, { payment_method: CARD() })).body.review;
    await service.deps.db('customers').where({ id: shop.customerId }).update({ restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME', restricted_at: new Date() });

    for (let round = 0; round < 2; round++) {
      const refused = await admin('POST', `/reviews/${review.id}/approve`);
      expect(refused.status).toBe(422);
      expect(refused.body.error).toBe('Approval refused.');
      expect(refused.body.hint).toContain('KYC_DOES_NOT_MATCH_PROFILE_NAME');
    }
    expect((await service.deps.db('reviews').where({ id: review.id }).first()).status).toBe('pending');
    expect((await walletView(service, checkout)).body.state).toBe('in_review');
    expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(0);
    expect((await recordedEvents(service, checkout.id)).map((e) => e.type)).toEqual(['checkout.review.created']);

    expect((await admin('POST', `/customers/${shop.customerId}/unrestrict`)).status).toBe(200);
    const approved = await admin('POST', `/reviews/${review.id}/approve`);
    expect(`${approved.status} ${approved.body.status}`).toBe('200 approved');
    await waitFor(async () => (await walletView(service, checkout)).body.state === 'completed');
    expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(1);
  });

  it('refuses an approval whose card expired, or that the KYC gate, the offered methods or the destination rule now refuse; a decline still decides', async () => {
    const shop = await withdrawalShop({ review: { enabled: true, min_amount_cents: 1 } });
    receiver.responder = () => ({ status: 200 });
    const inReview = async () => {
      const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
      return { checkout, review: (await attempt(service, checkout, { payment_method: CARD() })).body.review };
    };
    const settings = (body: Record<string, unknown>) => request(service.baseUrl, 'PATCH', `/admin/v1/merchants/${shop.merchant.id}/settings`, { token: service.adminToken, body });
    const expectRefused = async (checkout: { id: string }, reviewId: string, hint: RegExp) => {
      const refused = await admin('POST', `/reviews/${reviewId}/approve`);
      expect(`${refused.status} ${refused.body.error}`).toBe('422 Approval refused.');
      expect(refused.body.hint).toMatch(hint);
      expect((await service.deps.db('reviews').where({ id: reviewId }).first()).status).toBe('pending');
      expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(0);
    };

    const expired = await inReview();
    const { payment_method_id } = await service.deps.db('reviews').where({ id: expired.review.id }).first();
    await service.deps.db('payment_methods').where({ id: payment_method_id }).update({ details: service.deps.db.raw(`jsonb_set(details, '{card,exp_year}', '2020')`) });
    await expectRefused(expired.checkout, expired.review.id, /expired/);
    const declined = await admin('POST', `/reviews/${expired.review.id}/decline`);
    expect(`${declined.status} ${declined.body.status}`).toBe('200 declined');
    expect((await walletView(service, expired.checkout)).body.state).toBe('blocked');

    const kyc = await inReview();
    expect((await settings({ kyc_required_for: ['withdrawal'] })).status).toBe(200);
    await expectRefused(kyc.checkout, kyc.review.id, /kyc_not_verified/);
    expect((await settings({ kyc_required_for: [] })).status).toBe(200);

    const method = await inReview();
    expect((await settings({ payment_methods: { withdrawal: ['bank_account'] } })).status).toBe(200);
    await expectRefused(method.checkout, method.review.id, /no longer offers/);
    expect((await settings({ payment_methods: { withdrawal: ['credit_card', 'bank_account'] } })).status).toBe(200);

    const destination = await inReview();
    expect((await settings({ withdrawal_destinations: 'previously_deposited' })).status).toBe(200);
    await expectRefused(destination.checkout, destination.review.id, /successful deposit/);
    expect((await settings({ withdrawal_destinations: 'any' })).status).toBe(200);

    // Nothing left in the way: all three approve and pay out.
    for (const { checkout, review } of [kyc, method, destination]) {
      expect((await admin('POST', `/reviews/${review.id}/approve`)).status).toBe(200);
      await waitFor(async () => (await walletView(service, checkout)).body.state === 'completed');
    }
  });

  // Audit regression: the admin API wrote who decided after the workflow had recorded the
  // decision, so an API process that stopped in between (its request cut off) left a decided
  // review with no decider. The decision's update names the decider and the decision writes it.
  it('writes who decided with the decision itself, so a decision whose API call stopped afterwards keeps it', async () => {
    const shop = await withdrawalShop({ review: { enabled: true, min_amount_cents: 1 } });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
    const review = (await attempt(service, checkout, { payment_method: CARD() })).body.review;
    // The update as the admin API sends it, with nothing of the API after it.
    const decided = await service.deps.temporal.workflow.getHandle(checkout.id).executeUpdate(decideReviewUpdate, { args: ['declined', 'reviewer@example.com'] });
    expect(decided.status).toBe('declined');
    expect(await service.deps.db('reviews').where({ id: review.id }).first()).toMatchObject({ status: 'declined', decided_by: 'reviewer@example.com' });
  });

  it('does not review withdrawals under min_amount_cents, nor deposits', async () => {
    const shop = await withdrawalShop({ review: { enabled: true, min_amount_cents: 5000 } });
    receiver.responder = () => ({ status: 200 });
    const small = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 4999 });
    expect((await attempt(service, small, { payment_method: CARD() })).status).toBe(201);
    const deposit = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 9999 });
    expect((await attempt(service, deposit, { payment_method: CARD() })).status).toBe(201);
  });

  it('waits with no timeout: the checkout does not expire while in review', async () => {
    const shop = await withdrawalShop({ review: { enabled: true, min_amount_cents: 1 }, checkout_expiry_seconds: 2, enabled_events: ['checkout.expired'] });
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(202);
    await new Promise((r) => setTimeout(r, 3500));
    expect((await walletView(service, checkout)).body.state).toBe('in_review');
    expect((await recordedEvents(service, checkout.id)).map((e) => e.type)).not.toContain('checkout.expired');
  });
});

describe('expiry', () => {
  it('expires an unfinished checkout after checkout_expiry_seconds with checkout.expired', async () => {
    const shop = await withdrawalShop({ checkout_expiry_seconds: 2, enabled_events: ['checkout.expired'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit' });
    await waitFor(async () => (await walletView(service, checkout)).body.state === 'expired', 10_000);
    await waitFor(() => receiver.forCheckout(checkout.id).some((r) => r.body.type === 'checkout.expired'));
    const expired = receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.expired')!;
    expect(Object.keys(expired.body.data).sort()).toEqual(['customer', 'expired_at', 'id', 'subscription', 'type']);
    expect(expired.body.data.customer).toEqual({ id: shop.customerId });
    expect((await attempt(service, checkout, { amount_cents: 100, payment_method: CARD() })).status).toBe(422);
  });

  it('does not expire a paid checkout, and records checkout.expired but does not deliver it when not enabled', async () => {
    const shop = await withdrawalShop({ checkout_expiry_seconds: 2 });
    const paid = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 100 });
    await attempt(service, paid, { payment_method: CARD() });
    const unpaid = await createCheckout(service, shop, { type: 'deposit' });
    await waitFor(async () => (await walletView(service, unpaid)).body.state === 'expired', 10_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await walletView(service, paid)).body.state).toBe('completed');
    const events = await recordedEvents(service, unpaid.id);
    expect(events.map((e) => [e.type, e.enabled])).toEqual([['checkout.expired', false]]);
    expect(receiver.forCheckout(unpaid.id)).toHaveLength(0);
  });
});
