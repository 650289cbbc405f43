// Delivery series (a resend or a replay appends to an event's history, never rewrites it) and the
// delivery lease (an event has one sender at a time: its first attempt, or the sweeper's workflow).
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import { sweepAsDue } from '../../support/outbox';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, openShop, waitFor } from '../../support/fixtures';
import { recordEvent } from '../../../src/events/record';
import { deliverAfterCommit, settleFirstDeliveries } from '../../../src/events/first-delivery';
import { findMerchant } from '../../../src/storage/merchants';
import { DELIVERY_MAX_ATTEMPTS } from '../../../workflows/retry-policies';

let service: Service;
let receiver: WebhookReceiver;
// Short retries: a series of five failing attempts ends in about three seconds.
useServiceWithReceiver((env) => ({ service, receiver } = env), { service: { env: { WEBHOOK_RETRY_INITIAL_MS: '200' } } });

const admin = (method: string, path: string, body?: unknown) => request(service.baseUrl, method, `/admin/v1${path}`, { token: service.adminToken, body });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const eventRow = async (id: string) => service.deps.db('events').where({ id }).first();
const attemptRows = async (id: string) => service.deps.db('event_delivery_attempts').where({ event_id: id }).orderBy('id');

/** Holds `check` true for `ms`, polling: a status that must not change while a series ends. */
async function staysTrue(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!(await check())) throw new Error(`no longer true: ${what}`);
    await sleep(100);
  }
}

describe('a resend or a replay is a new delivery series of the same event', () => {
  it('keeps a delivered event delivered when a later series fails, numbers attempts on across series, and shows every series', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1500 });
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(201);
    const event = await waitFor(async () => {
      const row = await service.deps.db('events').where({ checkout_id: checkout.id, type: 'checkout.succeeded' }).first();
      return row?.delivery_status === 'delivered' && row;
    }, 20_000, 'first delivery');
    expect((await attemptRows(event.id)).map((a) => a.attempt)).toEqual([1]);

    // The merchant's endpoint now fails: the resend's series gives up after five attempts.
    receiver.responder = (r) => (r.body?.event_id === event.id ? { status: 500 } : { status: 200 });
    const resent = await admin('POST', `/events/${event.id}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ id: event.id, resent: true, series: 2 });
    await waitFor(async () => (await attemptRows(event.id)).length === 1 + DELIVERY_MAX_ATTEMPTS, 30_000, 'the resend series to run');
    await staysTrue(async () => (await eventRow(event.id)).delivery_status === 'delivered', 3000, 'the event stays delivered');

    // A failed_only replay does not select it; a plain replay starts series 3, which fails too.
    const failedOnly = await admin('POST', '/events/replay', { merchant_id: shop.merchant.id, failed_only: true, dry_run: true });
    expect(failedOnly.body).toMatchObject({ count: 0 });
    const replay = await admin('POST', '/events/replay', { merchant_id: shop.merchant.id, type: 'checkout.succeeded' });
    expect(replay.body).toMatchObject({ count: 1, event_ids: [event.id] });
    await waitFor(async () => (await attemptRows(event.id)).length === 1 + 2 * DELIVERY_MAX_ATTEMPTS, 30_000, 'the replay series to run');
    await staysTrue(async () => (await eventRow(event.id)).delivery_status === 'delivered', 3000, 'the event stays delivered');
    expect(receiver.requests.filter((r) => r.body?.event_id === event.id)).toHaveLength(11);

    // The event log: every attempt numbered on, each with its series, and each series with why it ran.
    const logged = await admin('GET', `/events/${event.id}`);
    expect(logged.body.delivery_status).toBe('delivered');
    expect(logged.body.attempts.map((a: { attempt: number; series: number }) => [a.attempt, a.series])).toEqual([
      [1, 1], [2, 2], [3, 2], [4, 2], [5, 2], [6, 2], [7, 3], [8, 3], [9, 3], [10, 3], [11, 3],
    ]);
    expect(logged.body.delivery_series).toEqual([
      expect.objectContaining({ series: 1, reason: 'first', accepted: true, attempts: 1 }),
      expect.objectContaining({ series: 2, reason: 'resend', accepted: false, attempts: 5 }),
      expect.objectContaining({ series: 3, reason: 'replay', accepted: false, attempts: 5 }),
    ]);
    const list = await admin('GET', `/events?merchant_id=${shop.merchant.id}&type=checkout.succeeded`);
    expect(list.body.results[0].delivery_series.map((s: { series: number }) => s.series)).toEqual([1, 2, 3]);
    // The merchant's own event log shows the same.
    const own = await request(service.baseUrl, 'GET', `/api/v1/events/${event.id}`, { token: shop.merchant.api_key });
    expect(own.body.attempts.map((a: { series: number }) => a.series)).toEqual([1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3]);

    // The checkout's timeline: one line per series started after the first, and every attempt with its series.
    const timeline = await admin('GET', `/checkouts/${checkout.id}/timeline`);
    const mine = timeline.body.entries.filter((e: { details: { event_id?: string } }) => e.details.event_id === event.id);
    expect(mine.filter((e: { kind: string }) => e.kind === 'event.series').map((e: { summary: string }) => e.summary)).toEqual([
      'Event checkout.succeeded resent: delivery series 2',
      'Event checkout.succeeded replayed: delivery series 3',
    ]);
    const attempts = mine.filter((e: { kind: string }) => e.kind === 'webhook.attempt');
    expect(attempts.map((e: { details: { attempt: number; series: number } }) => [e.details.attempt, e.details.series])).toEqual(logged.body.attempts.map((a: { attempt: number; series: number }) => [a.attempt, a.series]));
    expect(attempts.at(-1).summary).toBe('Webhook checkout.succeeded attempt 11 (series 3): HTTP 500 in ' + attempts.at(-1).details.duration_ms + ' ms');
  }, 90_000);

  it('a resend that is accepted marks a failed event delivered', async () => {
    receiver.responder = () => ({ status: 200 });
    const shop = await openShop(service, { webhook_url: receiver.url });
    const merchant = (await findMerchant(service.deps.db, shop.merchant.id))!;
    const event = await recordEvent(service.deps.db, merchant, 'checkout.succeeded', { probe: 'failed-then-resent' }, {});
    receiver.responder = (r) => (r.body?.event_id === event.id ? { status: 500 } : { status: 200 });
    await sweepAsDue(service, [event.id]);
    await waitFor(async () => (await eventRow(event.id)).delivery_status === 'failed', 30_000, 'series 1 to fail');
    receiver.responder = () => ({ status: 200 });
    expect((await admin('POST', `/events/${event.id}/resend`)).body.series).toBe(2);
    await waitFor(async () => (await eventRow(event.id)).delivery_status === 'delivered', 20_000, 'the resend to deliver');
    expect((await attemptRows(event.id)).map((a) => [a.attempt, a.series, a.http_status])).toEqual([[1, 1, 500], [2, 1, 500], [3, 1, 500], [4, 1, 500], [5, 1, 500], [6, 2, 200]]);
  }, 60_000);
});

describe('one sender per event', () => {
  // The sweeper's grace counted from the event's insert, while a first attempt can outlast it: the
  // sweeper then started the event's workflow beside the first attempt still in flight.
  it('a sweep while the first attempt waits on a slow merchant leaves the event to it: the attempts come one after another', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    const merchant = (await findMerchant(service.deps.db, shop.merchant.id))!;
    const event = await recordEvent(service.deps.db, merchant, 'checkout.succeeded', { probe: 'slow-first-attempt' }, {});
    const mine = () => receiver.requests.filter((r) => r.body?.event_id === event.id);
    // The first request is answered after 12 s, past the 10 s timeout; the next ones at once.
    receiver.responder = (r) => (r.body?.event_id === event.id && mine().length === 1 ? { status: 200, delayMs: 12_000 } : { status: 200 });
    deliverAfterCommit(service.deps, [event.id]);
    await waitFor(() => mine().length === 1, 10_000, 'the first attempt');
    // The sweeper finds it past its grace (as by a slow pool and a slow merchant) while the attempt runs.
    await sweepAsDue(service, [event.id]);
    await settleFirstDeliveries();
    await waitFor(async () => (await eventRow(event.id)).delivery_status === 'delivered', 20_000, 'delivery');
    await sleep(1000);
    const requests = mine();
    expect(requests).toHaveLength(2);
    // The second attempt follows the first's timeout: never two senders at once.
    expect(requests[1]!.receivedAt - requests[0]!.receivedAt).toBeGreaterThanOrEqual(9_500);
    expect((await attemptRows(event.id)).map((a) => a.attempt)).toEqual([1, 2]);
  }, 60_000);

  it('a first attempt that comes after the sweeper took the event does not send: at most five attempts', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    const merchant = (await findMerchant(service.deps.db, shop.merchant.id))!;
    const event = await recordEvent(service.deps.db, merchant, 'checkout.succeeded', { probe: 'late-first-attempt' }, {});
    receiver.responder = (r) => (r.body?.event_id === event.id ? { status: 500 } : { status: 200 });
    // The committing process waits for a pool connection past the grace: the sweeper takes the event first.
    await sweepAsDue(service, [event.id]);
    // Then its first attempt runs, with the rows its commit wrote (undispatched, pending).
    deliverAfterCommit(service.deps, [event.id], { events: [event], merchant });
    await settleFirstDeliveries();
    await waitFor(async () => (await eventRow(event.id)).delivery_status === 'failed', 30_000, 'the series to give up');
    await sleep(1500);
    expect(receiver.requests.filter((r) => r.body?.event_id === event.id)).toHaveLength(DELIVERY_MAX_ATTEMPTS);
    expect((await attemptRows(event.id)).map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
  }, 60_000);
});
