import { describeTemporalOutageUnderLoad } from '../support/temporal-outage-load';

/** The Temporal server killed for 30 s under steady load (4 attempts a second): see test/support/temporal-outage-load.ts. */
describeTemporalOutageUnderLoad({ outageMs: 30_000, attemptEveryMs: 250, timeoutMs: 240_000 });
