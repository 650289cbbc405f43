import {
  CHARGE_STATUSES,
  CHARGE_TRANSITIONS,
  IllegalChargeMove,
  allowedMoves,
  assertMove,
  eventForMove,
  findTransition,
  isChargeStatus,
  isTerminal,
  type ChargeStatus,
} from '../../src/domain/charge-states';
import { EVENT_TYPES } from '../../src/domain/event-catalog';

// The contract's Charge table, written out independently of the implementation.
const CONTRACT_TABLE: ReadonlyArray<[ChargeStatus, ChargeStatus, string | null]> = [
  ['created', 'pending', 'checkout.pending'],
  ['created', 'held', 'checkout.hold'],
  ['created', 'succeeded', 'checkout.succeeded'],
  ['created', 'failed', 'checkout.failed'],
  ['pending', 'succeeded', 'checkout.succeeded'],
  ['pending', 'failed', 'checkout.failed'],
  ['pending', 'cancelled', 'checkout.cancelled'],
  ['held', 'succeeded', 'checkout.succeeded'],
  ['held', 'failed', 'checkout.release_hold'],
  ['held', 'pending', 'checkout.pending'],
  ['succeeded', 'returned', 'checkout.returned'],
  ['succeeded', 'failed', 'checkout.failed'],
  ['succeeded', 'voided', 'checkout.voided'],
  ['succeeded', 'refunded', 'checkout.refunded'],
];

const listed = new Set(CHARGE_TRANSITIONS.map((move) => `${move.from}>${move.to}`));
const allPairs = CHARGE_STATUSES.flatMap((from) => CHARGE_STATUSES.map((to) => [from, to] as const));
const unlistedPairs = allPairs.filter(([from, to]) => !listed.has(`${from}>${to}`));

describe('charge state table', () => {
  it('has the nine statuses of the contract', () => {
    expect([...CHARGE_STATUSES].sort()).toEqual(
      ['cancelled', 'created', 'failed', 'held', 'pending', 'refunded', 'returned', 'succeeded', 'voided'],
    );
  });

  it('is exactly the contract table, without duplicates', () => {
    expect(CHARGE_TRANSITIONS.map((m) => [m.from, m.to, m.event])).toEqual(CONTRACT_TABLE);
    expect(listed.size).toBe(CHARGE_TRANSITIONS.length);
  });

  it('names only events of the catalog', () => {
    for (const move of CHARGE_TRANSITIONS) {
      if (move.event !== null) expect(EVENT_TYPES).toContain(move.event);
    }
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(CHARGE_TRANSITIONS)).toBe(true);
    expect(CHARGE_TRANSITIONS.every((move) => Object.isFrozen(move))).toBe(true);
  });

  describe.each(CHARGE_TRANSITIONS.map((m) => [m.from, m.to, m.event] as const))('%s -> %s', (from, to, event) => {
    it(`is allowed and emits ${event}`, () => {
      expect(findTransition(from, to)).toEqual({ from, to, event });
      expect(assertMove(from, to).event).toBe(event);
      expect(allowedMoves(from)).toContain(to);
      expect(eventForMove(from, to, 'debit')).toBe(event);
      if (!(from === 'pending' && to === 'cancelled')) expect(eventForMove(from, to, 'credit')).toBe(event);
    });
  });

  it.each(unlistedPairs)('refuses %s -> %s', (from, to) => {
    expect(findTransition(from, to)).toBeUndefined();
    expect(allowedMoves(from)).not.toContain(to);
    expect(() => assertMove(from, to)).toThrow(IllegalChargeMove);
    expect(() => eventForMove(from, to, 'credit')).toThrow(IllegalChargeMove);
  });

  it('refuses 81 - 14 = 67 pairs, self-moves included', () => {
    expect(unlistedPairs).toHaveLength(67);
    for (const status of CHARGE_STATUSES) expect(findTransition(status, status)).toBeUndefined();
  });

  it('sends no checkout.cancelled for a cancelled deposit: that event is payout-only', () => {
    expect(eventForMove('pending', 'cancelled', 'credit')).toBeNull();
    expect(eventForMove('pending', 'cancelled', 'debit')).toBe('checkout.cancelled');
  });

  it('reports a held charge that fails as release_hold, a created one as failed', () => {
    expect(eventForMove('held', 'failed', 'debit')).toBe('checkout.release_hold');
    expect(eventForMove('created', 'failed', 'debit')).toBe('checkout.failed');
  });
});

describe('IllegalChargeMove', () => {
  it('carries from, to and the allowed moves, and says them in its message', () => {
    let caught: unknown;
    try {
      assertMove('held', 'refunded');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(IllegalChargeMove);
    expect(caught).toBeInstanceOf(Error);
    const error = caught as IllegalChargeMove;
    expect(error.name).toBe('IllegalChargeMove');
    expect(error.from).toBe('held');
    expect(error.to).toBe('refunded');
    expect(error.allowed).toEqual(['succeeded', 'failed', 'pending']);
    expect(error.message).toContain('succeeded, failed, pending');
  });

  it('says "none" for a status without outgoing moves', () => {
    expect(() => assertMove('voided', 'succeeded')).toThrow(/allowed moves from voided: none/);
  });
});

describe('terminal statuses', () => {
  it.each([
    ['failed', true],
    ['returned', true],
    ['cancelled', true],
    ['refunded', true],
    ['created', false],
    ['pending', false],
    ['held', false],
    ['succeeded', false],
    ['voided', false],
  ] as const)('%s terminal: %s', (status, terminal) => {
    expect(isTerminal(status)).toBe(terminal);
  });

  it('gives terminal statuses and voided no outgoing move', () => {
    for (const status of CHARGE_STATUSES) {
      if (isTerminal(status) || status === 'voided') expect(allowedMoves(status)).toEqual([]);
      else expect(allowedMoves(status).length).toBeGreaterThan(0);
    }
  });

  it('recognises status strings', () => {
    expect(isChargeStatus('held')).toBe(true);
    expect(isChargeStatus('completed')).toBe(false);
  });
});
