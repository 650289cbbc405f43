// The hold handshake claims its charge last, right before the POST: a crash, a database outage
// or a stalled step anywhere in the handshake never makes the merchant hear of a release for a
// hold it was never sent, nor of a hold for a charge that already failed. Each failure is injected
// before every database step of the activity in turn, by counting the steps of a pool of its own.
// A worker that dies before step n leaves what a database down from step n leaves: no step from n
// on runs, and the workflow resolves the hold without the activity's answer.
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import type { ReceivedRequest, WebhookReceiver } from '../../support/receiver';
import { faultyDb, type Fault } from '../../support/faulty-db';
import { createdWithdrawalCharge, openShop, recordedEvents, waitFor, type Shop } from '../../support/fixtures';
import { createHoldActivities, type HoldAnswer } from '../../../activities/holds';

let service: Service;
let receiver: WebhookReceiver;
let shop: Shop;
useServiceWithReceiver((env) => ({ service, receiver } = env), {
  afterStart: async () => {
    shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['checkout.failed'] });
  },
});
beforeEach(() => {
  receiver.responder = () => ({ status: 200 });
});

const healthy = () => createHoldActivities(service.deps);
const chargeRow = (id: string) => service.deps.db('charges').where({ id }).first();

/**
 * What the merchant heard about the checkout once every enabled event recorded for it arrived (so
 * nothing still on its way is missed), in the order it arrived.
 */
async function heardOnceDelivered(checkoutId: string): Promise<ReceivedRequest[]> {
  return waitFor(async () => {
    const recorded = (await recordedEvents(service, checkoutId)).filter((e) => e.enabled);
    const heard = receiver.forCheckout(checkoutId);
    return recorded.every((e) => heard.some((r) => r.body.event_id === e.id)) && heard;
  }, 15_000, `the deliveries of ${checkoutId}`);
}

/** The workflow's resolveHold after placeHold returned `answer`, or failed (undefined). */
function resolveAfter(chargeId: string, answer: HoldAnswer | undefined) {
  return healthy().resolveHold({ chargeId, accepted: answer?.accepted ?? false, answered: answer !== undefined && answer.sent, sentByOther: answer?.sent === false });
}

/**
 * The rules the merchant can rely on, for one charge: a hold only for a claimed charge and every
 * claim followed by its POST; a release only after the hold it releases; one release at most.
 */
async function expectHoldRules(chargeId: string, checkoutId: string, label: string): Promise<string[]> {
  const heard = await heardOnceDelivered(checkoutId);
  const types = heard.map((r) => r.body.type as string);
  const charge = await chargeRow(chargeId);
  const holds = types.filter((t) => t === 'checkout.hold').length;
  const releases = (await recordedEvents(service, checkoutId)).filter((e) => e.type === 'checkout.release_hold').length;
  expect([label, 'holds POSTed', holds]).toEqual([label, 'holds POSTed', charge.hold_sent_at === null ? 0 : 1]);
  expect([label, 'releases', releases]).toEqual([label, 'releases', holds === 0 ? 0 : expect.any(Number)]);
  expect([label, 'at most one release', releases <= 1]).toEqual([label, 'at most one release', true]);
  if (releases === 1) expect([label, 'heard first', types[0]]).toEqual([label, 'heard first', 'checkout.hold']);
  expect([label, 'released', charge.hold_released_at !== null]).toEqual([label, 'released', releases === 1]);
  return types;
}

describe('a database outage before any step of the hold handshake', () => {
  it('before the claim: no hold, no release; after it: the hold was POSTed, and a release follows it unless the 2xx was recorded', async () => {
    const outcomes: string[] = [];
    for (let from = 1; ; from += 1) {
      const { checkout, charge } = await createdWithdrawalCharge(service, shop);
      const faulty = faultyDb(service.databaseUrl, { kind: 'down', from });
      let answer: HoldAnswer | undefined;
      try {
        answer = await createHoldActivities({ ...service.deps, db: faulty.db }).placeHold({ chargeId: charge.id });
      } catch {
        answer = undefined; // the activity failed: the workflow resolves the hold from what was recorded
      } finally {
        await faulty.destroy();
      }
      const resolved = await resolveAfter(charge.id, answer);
      const label = `database down from step ${from}`;
      const types = await expectHoldRules(charge.id, checkout.id, label);
      if (!types.includes('checkout.hold')) {
        expect([label, resolved.status, types]).toEqual([label, 'failed', ['checkout.failed']]);
      } else if (resolved.status === 'held') {
        expect([label, types]).toEqual([label, ['checkout.hold']]);
      } else {
        expect([label, resolved.status, types.slice(1).sort()]).toEqual([label, 'failed', ['checkout.failed', 'checkout.release_hold']]);
      }
      outcomes.push(`${answer ? 'returned' : 'failed'}:${types.includes('checkout.hold') ? 'hold' : 'none'}:${resolved.status}`);
      if (answer) break;
    }
    // Every step was reached: outages before the claim, the lost 2xx right after the POST, and the
    // log lines after the 2xx was recorded, then a run with no outage at all.
    expect(outcomes).toContain('failed:none:failed');
    expect(outcomes).toContain('failed:hold:failed');
    expect(outcomes).toContain('failed:hold:held');
    expect(outcomes.at(-1)).toBe('returned:hold:held');
    // The claim is the last step before the POST: every outage before it sends nothing.
    const firstPosted = outcomes.findIndex((o) => o.includes(':hold:'));
    expect(outcomes.slice(0, firstPosted).every((o) => o === 'failed:none:failed')).toBe(true);
  }, 120_000);
});

describe('the workflow gives up on the hold activity while it is stalled at any step', () => {
  it('a hold is never POSTed after the charge failed, and a release only follows a hold that was POSTed', async () => {
    const outcomes: string[] = [];
    for (let at = 1; ; at += 1) {
      const { checkout, charge } = await createdWithdrawalCharge(service, shop);
      const fault: Fault = { kind: 'pause', at };
      const faulty = faultyDb(service.databaseUrl, fault);
      const running = createHoldActivities({ ...service.deps, db: faulty.db })
        .placeHold({ chargeId: charge.id })
        .then((answer) => ({ answer }), (error: unknown) => ({ error }));
      const stalled = await Promise.race([faulty.reached.then(() => true), running.then(() => false)]);
      const label = `stalled at step ${at}`;
      const holdsHeard = () => receiver.forCheckout(checkout.id).filter((r) => r.body.type === 'checkout.hold').length;
      // Counted, not timed: a hold heard a millisecond before the stall shares its clock reading.
      let heardBeforeGivingUp = Infinity;
      if (stalled) {
        // Temporal timed the activity out: the workflow resolves the hold without its answer.
        heardBeforeGivingUp = holdsHeard();
        expect([label, (await resolveAfter(charge.id, undefined)).status]).toEqual([label, expect.stringMatching(/^(failed|held)$/)]);
        faulty.resume();
      }
      const outcome = await running;
      await faulty.destroy();
      const types = await expectHoldRules(charge.id, checkout.id, label);
      const lateHolds = Math.max(0, holdsHeard() - heardBeforeGivingUp);
      expect([label, 'holds POSTed after the workflow gave up', lateHolds]).toEqual([label, 'holds POSTed after the workflow gave up', 0]);
      const status = (await chargeRow(charge.id)).status;
      outcomes.push(`${stalled ? 'stalled' : 'ran'}:${types.includes('checkout.hold') ? 'hold' : 'none'}:${status}`);
      if (!stalled) {
        expect('answer' in outcome && outcome.answer).toMatchObject({ accepted: true, sent: true });
        break;
      }
    }
    // Stalled before the claim: the charge failed meanwhile and the claim refused it. Stalled after
    // the POST: a hold answered but not yet recorded is released once; one recorded stays held.
    expect(outcomes).toContain('stalled:none:failed');
    expect(outcomes).toContain('stalled:hold:failed');
    expect(outcomes).toContain('stalled:hold:held');
  }, 120_000);
});

describe('the hold activity needs time left for a 10-second POST', () => {
  /**
   * The hold activity run as Temporal runs it (the HOLD preset: 15 s from start to close), in an
   * attempt scheduled `scheduledAgoMs` before a worker took it, whose reading of the charge's rows
   * stalls for `stallMs` (a slow database, a busy worker) before it can claim the hold.
   */
  async function placeHoldInAttempt(chargeId: string, { scheduledAgoMs, stallMs }: { scheduledAgoMs: number; stallMs: number }) {
    const now = Date.now();
    const environment = new MockActivityEnvironment({
      activityType: 'placeHold',
      startToCloseTimeoutMs: 15_000,
      scheduleToCloseTimeoutMs: 0,
      scheduledTimestampMs: now - scheduledAgoMs,
      currentAttemptScheduledTimestampMs: now - scheduledAgoMs,
    });
    const faulty = faultyDb(service.databaseUrl, { kind: 'pause', at: 2 });
    void faulty.reached.then(() => setTimeout(() => faulty.resume(), stallMs));
    try {
      return await environment.run(createHoldActivities({ ...service.deps, db: faulty.db }).placeHold, { chargeId });
    } finally {
      await faulty.destroy();
    }
  }

  it('stalled until 10 s of its 15 s are left, it sends no hold and claims nothing: the charge fails with no release', async () => {
    const { checkout, charge } = await createdWithdrawalCharge(service, shop);
    const refused = await placeHoldInAttempt(charge.id, { scheduledAgoMs: 0, stallMs: 5_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect((refused as ApplicationFailure).type).toBe('HOLD_TOO_LATE');
    expect((refused as ApplicationFailure).nonRetryable).toBe(true);
    expect((await chargeRow(charge.id)).hold_sent_at).toBeNull();
    expect((await recordedEvents(service, checkout.id)).map((e) => e.type)).toEqual([]);

    // The activity failed: the workflow resolves the hold from what was recorded.
    expect((await resolveAfter(charge.id, undefined)).status).toBe('failed');
    expect((await heardOnceDelivered(checkout.id)).map((r) => r.body.type)).toEqual(['checkout.failed']);
    expect((await chargeRow(charge.id)).hold_released_at).toBeNull();
  }, 30_000);

  it('stalled 2 s, it sends the hold, also when its task waited a minute in the queue before a worker took it', async () => {
    for (const timing of [{ scheduledAgoMs: 0, stallMs: 2_000 }, { scheduledAgoMs: 60_000, stallMs: 2_000 }]) {
      const { checkout, charge } = await createdWithdrawalCharge(service, shop);
      expect([timing, await placeHoldInAttempt(charge.id, timing)]).toEqual([timing, expect.objectContaining({ accepted: true, sent: true })]);
      expect((await resolveAfter(charge.id, { accepted: true, sent: true, eventId: null })).status).toBe('held');
      expect((await heardOnceDelivered(checkout.id)).map((r) => r.body.type)).toEqual(['checkout.hold']);
    }
  }, 30_000);
});
