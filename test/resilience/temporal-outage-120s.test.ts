import { describeTemporalOutageUnderLoad } from '../support/temporal-outage-load';

/** The Temporal server killed for 120 s under steady load (2 attempts a second): see test/support/temporal-outage-load.ts. */
describeTemporalOutageUnderLoad({ outageMs: 120_000, attemptEveryMs: 500, timeoutMs: 330_000 });
