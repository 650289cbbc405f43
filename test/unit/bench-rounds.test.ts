import { alternateWithFloor, type Run } from '../../bench/support/floors';
import type { BenchEnvironment } from '../../bench/support/environment';

/** The environment alternateWithFloor reads: its round count, and pids whose CPU it samples (this process's). */
const envWithRounds = (rounds: number, steadyRounds = rounds, duration = rounds) =>
  ({ settings: { rounds, steadyRounds, duration, warmup: 0, connections: [1] }, pids: { api: process.pid, worker: process.pid } }) as unknown as BenchEnvironment;

/** A side that records each run's length under its name. */
const recorder = (runs: Array<[string, number]>) => (side: string) => async (seconds: number): Promise<Run> => {
  runs.push([side, seconds]);
  return { samples: [1], seconds, failures: 0 };
};

describe('alternateWithFloor', () => {
  it('alternates which side runs first from round to round (F S S F), so neither always follows the other', async () => {
    const order: string[] = [];
    const run = (side: string) => async (seconds: number): Promise<Run> => {
      order.push(side);
      return { samples: [1, 2, 3], seconds, failures: 0 };
    };
    const row = await alternateWithFloor(envWithRounds(4), { scenario: 'order', connections: 1, service: run('service'), floor: run('floor') });
    expect(order).toEqual(['floor', 'service', 'service', 'floor', 'floor', 'service', 'service', 'floor']);
    expect(row.requests).toBe(12);
    expect(row.floor?.requests).toBe(12);
  });

  it('runs a row without a floor once, whatever the round count', async () => {
    const order: string[] = [];
    await alternateWithFloor(envWithRounds(4), {
      scenario: 'alone',
      connections: 1,
      service: async (seconds) => {
        order.push('service');
        return { samples: [1], seconds, failures: 0 };
      },
    });
    expect(order).toEqual(['service']);
  });

  it('runs a steady row for BENCH_STEADY_ROUNDS rounds of the same length as any row\'s round, and says so in its note', async () => {
    const runs: Array<[string, number]> = [];
    const side = recorder(runs);
    // The default settings: 10 s a row in 2 rounds (5 s a side a round); a steady row 8 rounds.
    const env = envWithRounds(2, 8, 10);
    const plain = await alternateWithFloor(env, { scenario: 'plain', connections: 1, service: side('service'), floor: side('floor') });
    expect(runs).toEqual([['floor', 5], ['service', 5], ['service', 5], ['floor', 5]]);
    expect(plain.note).toBeUndefined();
    runs.length = 0;
    const steady = await alternateWithFloor(env, { scenario: 'steady', connections: 1, steady: true, service: side('service'), floor: side('floor') });
    expect(runs).toHaveLength(16);
    expect(runs.every(([, seconds]) => seconds === 5)).toBe(true);
    expect(runs.filter(([name]) => name === 'service')).toHaveLength(8);
    expect(runs.slice(0, 4).map(([name]) => name)).toEqual(['floor', 'service', 'service', 'floor']);
    expect(steady.requests).toBe(8);
    expect(steady.floor?.requests).toBe(8);
    expect(steady.note).toContain('a steady row: 8 alternating rounds of 5 s a side');
  });

  it('never runs a steady row in fewer rounds than BENCH_ROUNDS, and runs one without a floor once', async () => {
    const runs: Array<[string, number]> = [];
    const side = recorder(runs);
    const row = await alternateWithFloor(envWithRounds(4, 2, 8), { scenario: 'more', connections: 1, steady: true, service: side('service'), floor: side('floor') });
    expect(runs).toHaveLength(8);
    expect(row.note).toBeUndefined();
    runs.length = 0;
    await alternateWithFloor(envWithRounds(2, 8, 10), { scenario: 'alone', connections: 1, steady: true, service: side('service') });
    expect(runs).toEqual([['service', 10]]);
  });
});
