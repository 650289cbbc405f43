import { CHARGE_STATUSES, CHARGE_TRANSITIONS, allowedMoves, allowedMovesFor, moveRefusalFor, type ChargeStatus } from '../../../src/domain/charge-states';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { openShop, placedCharge, recordedEvents, type Shop } from '../../support/fixtures';

let service: Service;
let receiver: WebhookReceiver;
let shop: Shop;
useServiceWithReceiver((env) => ({ service, receiver } = env), {
  afterStart: async () => {
    shop = await openShop(service, {
      webhook_url: receiver.url,
      enabled_events: ['checkout.pending', 'checkout.failed', 'checkout.voided', 'checkout.refunded', 'checkout.cancelled'],
    });
  },
});

/** A charge row placed directly in a given status (a real row in the real database). */
async function chargeIn(status: ChargeStatus, type: 'deposit' | 'withdrawal' = 'withdrawal', s: Shop = shop): Promise<{ chargeId: string; checkoutId: string }> {
  const { checkout, charge } = await placedCharge(service, s, { status, type, amountCents: 4200 });
  return { chargeId: charge.id, checkoutId: checkout.id };
}

const transition = (chargeId: string, body: Record<string, unknown>) =>
  request(service.baseUrl, 'POST', `/admin/v1/sandbox/charges/${chargeId}/transition`, { token: service.adminToken, body });

describe('POST /admin/v1/sandbox/charges/{id}/transition', () => {
  // Each edge on a charge it fits: a withdrawal is paid only once held, only a deposit is refunded.
  const kindFor = (from: ChargeStatus, to: ChargeStatus) => (moveRefusalFor(from, to, 'debit') ? 'deposit' : 'withdrawal');
  it.each(CHARGE_TRANSITIONS.map((t) => [t.from, t.to, t.event] as const))('moves %s -> %s emitting %s', async (from, to, event) => {
    receiver.responder = () => ({ status: 200 });
    const { chargeId, checkoutId } = await chargeIn(from, kindFor(from, to));
    const res = await transition(chargeId, { to, ...(to === 'failed' ? { failure_code: 'processor_declined', failure_message: 'No.' } : {}) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: chargeId, status: to });
    const events = await recordedEvents(service, checkoutId);
    // pending -> cancelled emits checkout.cancelled only for payouts; that fixture is a payout.
    expect(events.map((e) => e.type)).toEqual(event ? [event] : []);
    if (event && event !== 'checkout.hold') expect(JSON.parse(events[0]!.body).data.charge).toMatchObject({ status: to, from_status: from });
  });

  it.each([
    ['created', 'pending', 'withdrawal'],
    ['created', 'succeeded', 'withdrawal'],
    ['created', 'held', 'deposit'],
    ['succeeded', 'refunded', 'withdrawal'],
  ] as const)('refuses %s -> %s on a %s charge with 422 and a hint saying why', async (from, to, type) => {
    const { chargeId, checkoutId } = await chargeIn(from, type);
    const res = await transition(chargeId, { to });
    expect(res.status).toBe(422);
    expect(res.body.hint).toContain(moveRefusalFor(from, to, type === 'deposit' ? 'credit' : 'debit'));
    // The moves it names are this charge's: never the one just refused.
    const named = /Allowed moves from \w+: ([a-z, ]+)\./.exec(res.body.hint)![1]!.split(', ');
    expect(named).toEqual(allowedMovesFor(from, type === 'deposit' ? 'credit' : 'debit'));
    expect(named).not.toContain(to);
    expect((await service.deps.db('charges').where({ id: chargeId }).first()).status).toBe(from);
    expect(await recordedEvents(service, checkoutId)).toHaveLength(0);
  });

  it('emits no event for pending -> cancelled on a deposit', async () => {
    const { chargeId, checkoutId } = await chargeIn('pending', 'deposit');
    expect((await transition(chargeId, { to: 'cancelled' })).status).toBe(200);
    expect(await recordedEvents(service, checkoutId)).toHaveLength(0);
  });

  it('created -> held runs the hold handshake: a refused hold fails the charge while created', async () => {
    receiver.responder = (r) => ({ status: r.body?.type === 'checkout.hold' ? 402 : 200 });
    const { chargeId, checkoutId } = await chargeIn('created');
    const res = await transition(chargeId, { to: 'held' });
    expect(res.body).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
    expect((await recordedEvents(service, checkoutId)).map((e) => e.type)).toEqual(['checkout.hold', 'checkout.failed']);
  });

  const illegal = CHARGE_STATUSES.flatMap((from) => CHARGE_STATUSES.filter((to) => !allowedMoves(from).includes(to)).map((to) => [from, to] as const));
  it.each(illegal)('refuses %s -> %s with 422 and a hint naming the allowed moves', async (from, to) => {
    const { chargeId } = await chargeIn(from);
    const res = await transition(chargeId, { to });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual(expect.any(String));
    // chargeIn's default is a withdrawal: the hint names the moves a withdrawal's charge can make.
    const allowed = allowedMovesFor(from, 'debit');
    expect(res.body.hint).toBe(allowed.length ? `Allowed moves from ${from}: ${allowed.join(', ')}.` : `${from} has no outgoing move.`);
    const row = await service.deps.db('charges').where({ id: chargeId }).first();
    expect(row.status).toBe(from);
  });

  it('refuses production merchants, unknown charges, bad bodies and missing admin tokens', async () => {
    const prod = await openShop(service, {}, 'production');
    const { chargeId } = await chargeIn('pending', 'deposit', prod);
    expect((await transition(chargeId, { to: 'succeeded' })).status).toBe(422);
    expect((await transition('ch_nope', { to: 'succeeded' })).status).toBe(404);
    const own = await chargeIn('pending', 'deposit');
    expect((await transition(own.chargeId, { to: 'exploded' })).status).toBe(422);
    expect((await transition(own.chargeId, { to: 'succeeded', extra: 1 })).status).toBe(422);
    const noToken = await request(service.baseUrl, 'POST', `/admin/v1/sandbox/charges/${own.chargeId}/transition`, { body: { to: 'succeeded' } });
    expect(noToken.status).toBe(401);
  });
});
