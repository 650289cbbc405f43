import { CRASH_POINTS, type CrashPoint } from '../../src/crash-points';
import { claimChargeForReconcile, renewAttemptLease } from '../../src/storage/charge-leases';
import { insertChargeOnce } from '../../src/storage/charges';
import { newId } from '../../src/domain/ids';
import { getProcessor } from '../../src/processors';
import { startService, type Service } from '../support/harness';
import { ChildService } from '../support/child-service';
import { freePort } from '../support/free-port';
import { request } from '../support/http';
import { WorkerProcess } from '../support/worker-process';
import { TemporalDevServer } from '../support/temporal-server';
import { attempt, BANK, CARD, createCheckout, openShop, recordedEvents, waitFor, type CreatedCheckout, type Shop } from '../support/fixtures';

/**
 * The reconciler (src/charges/reconciler.ts) against real crashes: the worker kills itself at a
 * named step of an attempt (PAYMENTS_TEST_CRASH_AT), and, where the test says so, the Temporal server
 * is killed too, as when the whole service dies: the attempt's update and its workflow task are lost,
 * while what the local activity committed stays. Within a bounded time every charge must be settled,
 * agree with the processor's own record of its calls, and leave its checkout payable (or paid).
 */
const LEASE_SECONDS = 2;
/** The least the configuration allows: an attempt whose API process died keeps its checkout this long. */
const ATTEMPT_SLOT_SECONDS = 15;
const IN_PROGRESS = ['created', 'pending', 'held'];

let temporal: TemporalDevServer;
let service: Service;
let shop: Shop;
let worker: WorkerProcess | null = null;

beforeAll(async () => {
  temporal = await TemporalDevServer.start();
  service = await startService({
    worker: false,
    replicas: 1,
    env: { TEMPORAL_ADDRESS: temporal.address, RECONCILE_LEASE_SECONDS: String(LEASE_SECONDS), RECONCILE_SWEEP_MS: '300', ATTEMPT_SLOT_SECONDS: String(ATTEMPT_SLOT_SECONDS) },
  });
  shop = await openShop(service, { sandbox_settlement_seconds: 2 });
}, 120_000);

afterEach(async () => {
  await worker?.stop();
  worker = null;
});

afterAll(async () => {
  await service?.stop();
  await temporal?.stop();
});

/**
 * Sends an attempt through an API process of its own, lets the worker die at `point`, then kills that
 * API and the Temporal server with SIGKILL, as a crash of the whole service would (nothing is left to
 * send the attempt's update again), and starts Temporal and a worker again.
 */
async function crashEverythingAt(point: CrashPoint, checkout: CreatedCheckout, paymentMethod: Record<string, unknown>): Promise<void> {
  const port = await freePort();
  const api = new ChildService('api', { ...service.childEnv, PORT: String(port) });
  const [crashing] = await Promise.all([startWorker({ PAYMENTS_TEST_CRASH_AT: point }), api.start()]);
  const answer = request(`http://127.0.0.1:${port}`, 'POST', `/wallet/v1/checkouts/${checkout.id}/attempts`, { body: { payment_method: paymentMethod }, headers: { 'x-client-secret': checkout.client_secret } }).catch(() => null);
  await crashing.waitForExit();
  await api.kill();
  await temporal.kill();
  await answer;
  await temporal.start();
  // The in-process API's client reconnects on its own; the test goes on once it has.
  await waitFor(() => service.deps.temporal.workflowService.getSystemInfo({}).then(() => true, () => false), 60_000, "the API's Temporal client to reconnect");
  worker = await startWorker();
}

async function startWorker(env: Record<string, string> = {}): Promise<WorkerProcess> {
  const started = new WorkerProcess(service, env);
  await started.start();
  return started;
}

const chargesOf = (checkoutId: string) => service.deps.db('charges').where({ checkout_id: checkoutId }).orderBy('created_at');

/** Every charge of the checkout settled, each as the processor's record of its call says. */
async function expectSettledAsTheProcessorSays(checkoutId: string): Promise<Array<Record<string, any>>> {
  const charges = await waitFor(async () => {
    const rows = await chargesOf(checkoutId);
    return rows.every((row) => !IN_PROGRESS.includes(row.status)) && rows;
  }, 30_000, 'every charge of the checkout settled');
  for (const charge of charges) {
    const call = await service.deps.db('sandbox_processor_calls').where({ idempotency_key: charge.id }).first();
    if (call) {
      // A charge the processor answered pending goes on to its settlement.
      expect(call.outcome.kind === 'pending' ? ['succeeded', 'failed'] : [call.outcome.kind]).toContain(charge.status);
      expect(charge.processor_charge_id).toBe(call.outcome.processor_charge_id);
    } else {
      expect(charge).toMatchObject({ status: 'failed', failure_code: 'attempt_interrupted' });
    }
  }
  // The merchant hears of each settled charge once, as its status says.
  const events = (await recordedEvents(service, checkoutId)).map((event) => event.type);
  const succeeded = charges.filter((charge) => charge.status === 'succeeded').length;
  expect(events.filter((type) => type === 'checkout.succeeded')).toHaveLength(succeeded);
  return charges;
}

/**
 * The checkout is paid, or a new attempt pays it. An attempt whose API process died before it wrote
 * a charge keeps the checkout's attempt slot until the slot lapses (ATTEMPT_SLOT_SECONDS): until
 * then the wallet hears that an attempt is still in progress, as it should.
 */
async function expectPaidOrPayable(checkout: CreatedCheckout): Promise<void> {
  const row = await service.deps.db('checkouts').where({ id: checkout.id }).first();
  if (row.state === 'completed') return;
  expect(row.state).toBe('open');
  const res = await waitFor(async () => {
    const answer = await attempt(service, checkout, { payment_method: CARD() });
    if (answer.status !== 422 || answer.body.error !== 'Another payment attempt is still in progress.') return answer;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return false;
  }, (ATTEMPT_SLOT_SECONDS + 15) * 1000, 'the checkout to take an attempt');
  expect(res.status).toBe(201);
  expect(res.body.charge.status).toBe('succeeded');
}

describe('a crash of the whole service in the middle of an attempt', () => {
  it.each(CRASH_POINTS.map((point) => [point]))('at %s: every charge is settled as the processor says, and the checkout can be paid', async (point: CrashPoint) => {
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2300 });
    await crashEverythingAt(point, checkout, CARD());

    const settled = await expectSettledAsTheProcessorSays(checkout.id);
    expect(settled).toHaveLength(point === 'before_charge_insert' ? 0 : 1);
    await expectPaidOrPayable(checkout);
    await expectSettledAsTheProcessorSays(checkout.id);
  }, 180_000);

  it('settles a charge the processor took but never answered as the processor took it (a pending bank charge too)', async () => {
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2400 });
    await crashEverythingAt('after_processor_call', checkout, BANK());

    await expectSettledAsTheProcessorSays(checkout.id);
    const [charge] = await chargesOf(checkout.id);
    expect(charge.status).toBe('succeeded'); // the processor saw it pending, and settled it
    expect((await recordedEvents(service, checkout.id)).map((event) => event.type)).toEqual(['checkout.pending', 'checkout.succeeded']);
  }, 90_000);
});

describe('a crash of the worker alone in the middle of an attempt', () => {
  it.each(CRASH_POINTS.map((point) => [point]))('at %s: every charge is settled as the processor says, and the checkout can be paid', async (point: CrashPoint) => {
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2500 });
    const crashing = await startWorker({ PAYMENTS_TEST_CRASH_AT: point });
    const answer = attempt(service, checkout, { payment_method: CARD() });
    await crashing.waitForExit();
    worker = await startWorker(); // Temporal kept the update: the attempt resumes, or the reconciler settles it
    await answer;

    await expectSettledAsTheProcessorSays(checkout.id);
    await expectPaidOrPayable(checkout);
  }, 90_000);
});

describe('an attempt still running past the lease', () => {
  it('is left to its workflow: a bank charge pending longer than the lease settles once, by its workflow', async () => {
    const slow = await openShop(service, { sandbox_settlement_seconds: LEASE_SECONDS * 3 });
    worker = await startWorker();
    const checkout = await createCheckout(service, slow, { type: 'deposit', fixed_amount_cents: 2600 });
    const res = await attempt(service, checkout, { payment_method: BANK() });
    expect(res.body.charge.status).toBe('pending');

    await waitFor(async () => (await chargesOf(checkout.id))[0].status === 'succeeded', 30_000, 'the settlement');
    const [charge] = await chargesOf(checkout.id);
    expect(charge.attempt_seen_at).not.toBeNull(); // the reconciler looked, and found its workflow at work
    expect(charge.reconcile_claimed_at).toBeNull();
    expect((await recordedEvents(service, checkout.id)).map((event) => event.type)).toEqual(['checkout.pending', 'checkout.succeeded']);
  }, 60_000);
});

describe('the lease between the reconciler and an attempt that resumes a charge', () => {
  /** A second charge of a paid checkout, created and silent for `ageSeconds`, as a lost attempt leaves one. */
  async function silentCharge(ageSeconds: number) {
    worker ??= await startWorker();
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2700 });
    const paid = await attempt(service, checkout, { payment_method: CARD() });
    const first = (await chargesOf(checkout.id))[0];
    expect(paid.status).toBe(201);
    // No worker, so no reconciler, while the test plays both parts.
    await worker.stop();
    worker = null;
    const charge = await insertChargeOnce(service.deps.db, { ...first, id: newId('charge'), attempt_key: newId('charge') });
    await service.deps.db('charges').where({ id: charge.id }).update({ updated_at: service.deps.db.raw(`now() - interval '${ageSeconds} seconds'`) });
    return charge;
  }
  const leaseMs = LEASE_SECONDS * 1000;

  it('gives a silent charge to the first of them: a claimed charge is not resumed, a resumed one is not claimed', async () => {
    const claimedFirst = await silentCharge(LEASE_SECONDS + 5);
    expect(await claimChargeForReconcile(service.deps.db, claimedFirst.id, 'created', leaseMs)).toMatchObject({ id: claimedFirst.id });
    expect(await renewAttemptLease(service.deps.db, claimedFirst.id, leaseMs)).toBeUndefined();
    expect(await claimChargeForReconcile(service.deps.db, claimedFirst.id, 'created', leaseMs)).toBeUndefined(); // one reconciler at a time

    const resumedFirst = await silentCharge(LEASE_SECONDS + 5);
    expect(await renewAttemptLease(service.deps.db, resumedFirst.id, leaseMs)).toMatchObject({ id: resumedFirst.id });
    expect(await claimChargeForReconcile(service.deps.db, resumedFirst.id, 'created', leaseMs)).toBeUndefined();
  }, 60_000);

  it('never claims a charge younger than the lease', async () => {
    const young = await silentCharge(0);
    expect(await claimChargeForReconcile(service.deps.db, young.id, 'created', leaseMs)).toBeUndefined();
  }, 60_000);
});

describe('the sandbox processor’s record of its calls', () => {
  const card = { type: 'card' as const, card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' } };

  it('answers a look-up by idempotency key as it answered the call, and a repeated call with the recorded outcome', async () => {
    const processor = getProcessor('sandbox_beta', service.deps.db);
    const key = newId('charge');
    const { processor_token: token } = await processor.tokenize(card, 'fingerprint-key', 'sandbox');
    expect(await processor.lookupCharge(key)).toEqual({ seen: false });

    const outcome = await processor.charge({ token, payment_type: 'card', amount_cents: 500, transaction_type: 'credit', idempotency_key: key });
    expect(outcome.kind).toBe('succeeded');
    expect(await processor.lookupCharge(key)).toEqual({ seen: true, outcome });
    // Another processor never saw it.
    expect(await getProcessor('sandbox_alpha', service.deps.db).lookupCharge(key)).toEqual({ seen: false });
    const declined = (await processor.tokenize({ ...card, card: { ...card.card, number: '4000000000000002' } }, 'fingerprint-key', 'sandbox')).processor_token;
    expect(await processor.charge({ token: declined, payment_type: 'card', amount_cents: 900, transaction_type: 'credit', idempotency_key: key })).toEqual(outcome);
  });

  it('refuses a look-up it could not answer truthfully: without a database it keeps no record', async () => {
    await expect(getProcessor('sandbox_beta').lookupCharge(newId('charge'))).rejects.toThrow(/no record/);
  });
});
