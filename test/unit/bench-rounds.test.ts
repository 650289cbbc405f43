import { alternateWithFloor, type Run } from '../../bench/support/floors';
import type { BenchEnvironment } from '../../bench/support/environment';

/** The environment alternateWithFloor reads: its round count, and pids whose CPU it samples (this process's). */
const envWithRounds = (rounds: number) => ({ settings: { rounds, duration: rounds, warmup: 0, connections: [1] }, pids: { api: process.pid, worker: process.pid } }) as unknown as BenchEnvironment;

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
});
