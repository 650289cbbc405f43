import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { execFileSync } from 'node:child_process';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Service } from '../support/harness';
import { useServiceWithReceiver } from '../support/file-environment';
import { startTracing, workerTracingOptions } from '../../src/observability/tracing';
import { tracedBundlePath } from '../../src/worker';
import { request } from '../support/http';
import type { WebhookReceiver } from '../support/receiver';
import { attempt, BANK, CARD, createCheckout, getCharge, openShop, waitFor } from '../support/fixtures';
import { HOUR, plus, subscriptionHelpers } from '../support/subscriptions';
import { checkoutExpiryWorkflowId } from '../../workflows/contract';

/**
 * Workflow histories recorded from real runs are replayed against the current workflow code, so a
 * change that would break running workflows (non-determinism) fails before it lands. The histories
 * are the baseline's, one per path; a change follows the versioning rule (docs/architecture.md,
 * "Changing a workflow"): behind patched(), the histories of the paths it changes are recorded
 * beside the baseline's with RECORD_HISTORIES=1 RECORD_SUFFIX=<patch id> npx jest test/workflows/replay.test.ts -t '<test>'.
 */
const DIR = path.join(__dirname, 'histories');
const recording = process.env.RECORD_HISTORIES === '1';
/** RECORD_SUFFIX=<patch id> records beside the existing histories (`<type>--<path>--<patch id>.json`) instead of over them. */
const suffix = process.env.RECORD_SUFFIX ? `--${process.env.RECORD_SUFFIX}` : '';

describe('recorded workflow histories', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

  (recording ? it.skip : it)('exist for every workflow type', () => {
    const types = new Set(files.map((f) => f.split('--')[0]));
    expect([...types].sort()).toEqual(['checkoutExpiryWorkflow', 'checkoutWorkflow', 'deliverEventWorkflow', 'refundWorkflow', 'subscriptionWorkflow']);
  });

  // Both production bundles replay every history: a worker restarted with tracing switched on or
  // off picks up the other one mid-workflow (the interceptors add headers, never commands).
  const cases = files.flatMap((file) => [[file, 'plain'], [file, 'traced']] as const);
  const replay = recording ? it.skip.each(cases) : it.each(cases);
  replay('replays %s deterministically with the %s bundle', async (file, bundle) => {
    const history = historyFromJSON(JSON.parse(readFileSync(path.join(DIR, file), 'utf8')));
    const plain = process.env.WORKFLOW_BUNDLE_PATH!;
    // The traced bundle calls the span sink; it is registered for both.
    const { sinks } = workerTracingOptions(startTracing({ serviceName: 'replay', otlpEndpoint: null }));
    await Worker.runReplayHistory({ workflowBundle: { codePath: bundle === 'traced' ? tracedBundlePath(plain) : plain }, sinks }, history, file);
  });
});

(recording ? describe : describe.skip)('recording histories (RECORD_HISTORIES=1)', () => {
  let service: Service;
  let receiver: WebhookReceiver;
  useServiceWithReceiver((env) => ({ service, receiver } = env), { service: { env: { WEBHOOK_RETRY_INITIAL_MS: '200' } } });

  /** Saves the history of a closed run: the last run, or `runId` (one run of a workflow that continued as new). */
  async function save(name: string, workflowId: string, runId?: string) {
    const handle = service.deps.temporal.workflow.getHandle(workflowId, runId);
    if (!runId) await handle.result().catch(() => undefined);
    const { type } = await handle.describe();
    // The CLI's JSON export is the format historyFromJSON reads (and what operators export too).
    const run = runId ? ['--run-id', runId] : [];
    const json = execFileSync(process.env.TEMPORAL_CLI_PATH!, ['workflow', 'show', '--workflow-id', workflowId, ...run, '--address', service.deps.config.temporalAddress, '--output', 'json']);
    writeFileSync(path.join(DIR, `${type}--${name}${suffix}.json`), json);
  }

  // Record only these with RECORD_HISTORIES=1 npx jest test/workflows/replay.test.ts -t subscription
  it('records the runs of a subscription workflow', async () => {
    const { setClock, subscribe, read, advance, until, admin } = subscriptionHelpers(() => service);
    const shop = await openShop(service, { subscription_retry_days: [1] });
    await setClock(shop, '2027-01-31T12:00:00Z');
    const { id } = await subscribe(shop);
    const firstRun = (await service.deps.temporal.workflow.getHandle(id).describe()).runId;
    await advance(id, { to: plus((await read(id)).current_period_end, HOUR) });
    await until(id, (s) => s.current_period_end.startsWith('2027-03-31'), 'the first renewal');
    await save('renewal-continue-as-new', id, firstRun);

    const declined = await subscribe(shop, { card: '4000000000000341' });
    const declinedRun = (await service.deps.temporal.workflow.getHandle(declined.id).describe()).runId;
    await advance(declined.id, { to: plus((await read(declined.id)).current_period_end, HOUR) });
    await until(declined.id, (s) => s.status === 'past_due', 'the failed renewal');
    await save('renewal-failed', declined.id, declinedRun);
    await admin('POST', `/subscriptions/${declined.id}/cancel`, {});
    await save('cancel-now', declined.id);

    await admin('POST', `/subscriptions/${id}/cancel`, { at_period_end: true });
    await advance(id, { to: '2027-05-01T00:00:00Z' });
    await save('cancel-at-period-end', id);
  }, 120_000);

  // Record only these with RECORD_HISTORIES=1 npx jest test/workflows/replay.test.ts -t 'real time'
  it('records a renewal and an end at period end that real time reaches after an advance', async () => {
    const { setClock, subscribe, read, advance, until, admin } = subscriptionHelpers(() => service);
    const shop = await openShop(service);
    await setClock(shop, '2027-06-01T00:00:00Z');
    const renewed = await subscribe(shop, { interval: 'week' });
    const renewedRun = (await service.deps.temporal.workflow.getHandle(renewed.id).describe()).runId;
    await advance(renewed.id, { to: plus((await read(renewed.id)).next_charge_at, -2_000) });
    await until(renewed.id, (s) => s.charges.length === 2, 'the renewal by real time', 20_000);
    await save('renewal-by-real-time-after-advance', renewed.id, renewedRun);

    const ending = await subscribe(shop, { interval: 'week' });
    const cancelled = await admin('POST', `/subscriptions/${ending.id}/cancel`, { at_period_end: true });
    await advance(ending.id, { to: plus(cancelled.body.current_period_end, -2_000) });
    await until(ending.id, (s) => s.status === 'cancelled', 'the end by real time', 20_000);
    await save('cancel-at-period-end-by-real-time', ending.id);
  }, 120_000);

  // Record only this one with RECORD_HISTORIES=1 npx jest test/workflows/replay.test.ts -t 'refused approval'
  it('records a refused approval, then an approval that pays out', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 1 } });
    const admin = (path: string) => request(service.baseUrl, 'POST', `/admin/v1${path}`, { token: service.adminToken });
    const reviewed = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
    const r = await attempt(service, reviewed, { payment_method: CARD() });
    await service.deps.db('customers').where({ id: shop.customerId }).update({ restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME', restricted_at: new Date() });
    expect((await admin(`/reviews/${r.body.review.id}/approve`)).status).toBe(422);
    expect((await admin(`/customers/${shop.customerId}/unrestrict`)).status).toBe(200);
    expect((await admin(`/reviews/${r.body.review.id}/approve`)).status).toBe(200);
    await save('review-approval-refused', reviewed.id);
  }, 60_000);

  // Only this one: RECORD_HISTORIES=1 npx jest test/workflows/replay.test.ts -t 'request answered'
  it('records a decision and a refund refused because their request answered 503 first, each then sent again', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 1_000 } });
    const db = service.deps.db;
    const admin = (path: string) => request(service.baseUrl, 'POST', `/admin/v1${path}`, { token: service.adminToken });
    // The worker's task begins in time and reaches the database (locked by this test) after the request answered 503.
    const answeredFirst = async <T>(table: string, id: string, send: () => Promise<T>): Promise<T> => {
      const lock = await db.transaction();
      await lock(table).where({ id }).forUpdate();
      try {
        return await send();
      } finally {
        await lock.commit();
      }
    };
    const reviewed = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 2000 });
    const reviewId = (await attempt(service, reviewed, { payment_method: CARD() })).body.review.id;
    expect((await answeredFirst('reviews', reviewId, () => admin(`/reviews/${reviewId}/decline`))).status).toBe(503);
    expect((await admin(`/reviews/${reviewId}/approve`)).status).toBe(200);
    await save('review-decision-request-answered', reviewed.id);

    const deposit = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 900 });
    const chargeId = (await attempt(service, deposit, { payment_method: CARD() })).body.charge.id;
    await waitFor(async () => (await getCharge(service, shop, chargeId)).body.status === 'succeeded');
    const refund = () => request(service.baseUrl, 'POST', `/api/v1/charges/${chargeId}/refund`, { token: shop.merchant.api_key, headers: { 'idempotency-key': `replay-${chargeId}` } });
    expect((await answeredFirst('charges', chargeId, refund)).status).toBe(503);
    const refused = await service.deps.temporal.workflow.getHandle(chargeId).describe();
    await waitFor(async () => (await service.deps.temporal.workflow.getHandle(chargeId, refused.runId).describe()).status.name === 'FAILED');
    await save('request-answered', chargeId, refused.runId);
    expect((await refund()).status).toBe(200);
    await save('api-refund-fenced', chargeId);
  }, 90_000);

  // Only this one: RECORD_HISTORIES=1 npx jest test/workflows/replay.test.ts -t 'untried checkout'
  it("records an untried checkout's expiry workflow, and one whose checkout was tried", async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, checkout_expiry_seconds: 3, enabled_events: ['checkout.expired'] });
    const untried = await createCheckout(service, shop, { type: 'deposit' });
    await save('expired', checkoutExpiryWorkflowId(untried.id));
    const tried = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2000 });
    await attempt(service, tried, { payment_method: CARD() });
    await save('checkout-closed', checkoutExpiryWorkflowId(tried.id));
  }, 30_000);

  it('records one history per path of each workflow', async () => {
    let calls = 0;
    receiver.responder = (r) => ({ status: r.body?.type === 'checkout.hold' ? 200 : ++calls <= 2 ? 500 : 200 });
    const shop = await openShop(service, {
      webhook_url: receiver.url, sandbox_settlement_seconds: 1, checkout_expiry_seconds: 3,
      review: { enabled: true, min_amount_cents: 5000 }, enabled_events: ['checkout.pending', 'checkout.refunded', 'checkout.expired'],
    });

    const card = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2000 });
    await attempt(service, card, { payment_method: CARD('4000000000000002') });
    const paid = await attempt(service, card, { payment_method: CARD() });
    await save('card-decline-then-success', card.id);

    const bank = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2000 });
    await attempt(service, bank, { payment_method: BANK() });
    await save('bank-pending-settled', bank.id);

    const withdrawal = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 1000 });
    await attempt(service, withdrawal, { payment_method: BANK() });
    await save('withdrawal-hold-payout', withdrawal.id);

    for (const decision of ['approve', 'decline'] as const) {
      const reviewed = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 6000 });
      const r = await attempt(service, reviewed, { payment_method: CARD() });
      await request(service.baseUrl, 'POST', `/admin/v1/reviews/${r.body.review.id}/${decision}`, { token: service.adminToken });
      await save(`review-${decision}`, reviewed.id);
    }

    // The approved charge's hold is refused; a second attempt needing review is refused.
    receiver.responder = (r) => ({ status: r.body?.type === 'checkout.hold' ? 402 : 200 });
    const spent = await createCheckout(service, shop, { type: 'withdrawal', balance_amount_cents: 20_000 });
    const first = await attempt(service, spent, { amount_cents: 6000, payment_method: CARD() });
    await request(service.baseUrl, 'POST', `/admin/v1/reviews/${first.body.review.id}/approve`, { token: service.adminToken });
    await waitFor(async () => (await service.deps.db('charges').where({ checkout_id: spent.id, status: 'failed' })).length === 1);
    const { submitAttemptUpdate } = await import('../../workflows/contract');
    const [firstCharge] = await service.deps.db('charges').where({ checkout_id: spent.id });
    await service.deps.temporal.workflow
      .getHandle(spent.id)
      .executeUpdate(submitAttemptUpdate, { args: [{ attemptId: `second-${spent.id}`, paymentMethodId: firstCharge.payment_method_id, amountCents: 9000 }] })
      .catch(() => undefined);
    await save('review-spent-then-refused', spent.id);
    receiver.responder = (r) => ({ status: r.body?.type === 'checkout.hold' ? 200 : ++calls <= 2 ? 500 : 200 });

    // The checkout's own workflow exists once someone tried to pay: a declined attempt, then the deadline.
    const expired = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2000 });
    await attempt(service, expired, { payment_method: CARD('4000000000000002') });
    await save('expired', expired.id);

    const auto = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 108 });
    const autoCharge = await attempt(service, auto, { payment_method: CARD() });
    await save('sandbox-auto-refund', auto.id);
    await waitFor(async () => (await getCharge(service, shop, autoCharge.body.charge.id)).body.status === 'refunded');
    await save('sandbox-auto-refund', autoCharge.body.charge.id);

    const refunded = await request(service.baseUrl, 'POST', `/api/v1/charges/${paid.body.charge.id}/refund`, { token: shop.merchant.api_key });
    expect(refunded.status).toBe(200);
    await save('api-refund', paid.body.charge.id);

    const [retried] = await service.deps.db('events').where({ checkout_id: card.id, type: 'checkout.succeeded' });
    await waitFor(async () => (await service.deps.db('events').where({ id: retried.id }).first()).delivery_status === 'delivered');
    await save('delivered-after-retries', retried.id);
  }, 120_000);
});
