import { describeTemporalOutageUnderLoad } from '../support/temporal-outage-load';

/**
 * The Temporal server killed under steady load, for 30 s and then for 120 s, one after the other
 * (each with its own server, service and worker): see test/support/temporal-outage-load.ts.
 * In one file, so the two never load the machine at once and stretch each other's answers.
 */
describe('30 s away, 4 attempts a second', () => {
  describeTemporalOutageUnderLoad({ outageMs: 30_000, attemptEveryMs: 250, timeoutMs: 240_000 });
});

describe('120 s away, 2 attempts a second', () => {
  describeTemporalOutageUnderLoad({ outageMs: 120_000, attemptEveryMs: 500, timeoutMs: 330_000 });
});
