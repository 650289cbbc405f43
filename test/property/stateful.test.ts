/**
 * Model-based property test of the money rules: random sequences of commands over
 * HTTP against the real service, real PostgreSQL and real Temporal, with a merchant endpoint
 * whose answers are themselves commands. After every command and at the end of each sequence
 * every invariant of test/property/support/invariants.ts is checked.
 *
 * `npm test` runs a fixed seed and a few sequences; `npm run test:long` runs seed after seed
 * (PROPERTY_PARALLEL of them at a time) until PROPERTY_MIN_COMMANDS commands have run, and prints
 * the counts and the time taken. PROPERTY_SEED (the first seed), PROPERTY_SEEDS (a list),
 * PROPERTY_RUNS (sequences per seed), PROPERTY_COMMANDS, PROPERTY_MAX_MINUTES, PROPERTY_PATH and
 * PROPERTY_IGNORE override the defaults; docs/testing.md explains them.
 *
 * The service runs scaled out, as a deployment does: two API processes behind one round-robin
 * address (consecutive requests of a sequence reach different processes) and two workers, each
 * with its sweepers (PROPERTY_REPLICAS sets another count).
 */
import fc from 'fast-check';
import { startService, type Service } from '../support/harness';
import { installChargeAudit } from './support/audit';
import { answerArb, commandArbitrary, CreateCheckout, DEPOSIT_FLOWS } from './support/commands';
import { StripeProxy } from '../support/stripe-scripted';
import { stripeTestCardScript } from '../support/stripe-test-cards';
import { checkInvariants, checkWorkflowsFinished, RECONCILE_LEASE_SECONDS, settle } from './support/invariants';
import { MerchantEndpoint } from './support/merchant-endpoint';
import { initialModel } from './support/model';
import { IGNORED, openWorld, type World } from './support/world';
import { OPTIONAL_EVENT_TYPES } from '../../src/domain/event-types';
import { loadGeoData } from '../../src/geo';

const LONG = process.env.PROPERTY_LONG === '1';
const env = (name: string, fallback: number) => (process.env[name] !== undefined && process.env[name] !== '' ? Number(process.env[name]) : fallback);
const RUNS = env('PROPERTY_RUNS', LONG ? 60 : 10);
const COMMANDS = env('PROPERTY_COMMANDS', LONG ? 40 : 20);
const FIRST_SEED = env('PROPERTY_SEED', LONG ? Date.now() % 2 ** 31 : 20261122);
/** The seeds to run, in order: a list, or (long runs) as many as it takes to reach MIN_COMMANDS. */
const SEED_LIST = process.env.PROPERTY_SEEDS ? process.env.PROPERTY_SEEDS.split(',').map(Number) : null;
/** Long runs go on, seed after seed, until this many commands have run (or MAX_MINUTES passed). */
const MIN_COMMANDS = env('PROPERTY_MIN_COMMANDS', LONG ? 20_000 : 0);
const MAX_MINUTES = env('PROPERTY_MAX_MINUTES', LONG ? 360 : 60);
/** Seeds run side by side: the stack mostly waits (timers, settlement, the merchant's answers). */
const PARALLEL = env('PROPERTY_PARALLEL', LONG ? 2 : 1);
/** Shrinking replays sequences against the real stack (seconds each): on by default only in long runs. */
const SHRINK = process.env.PROPERTY_SHRINK ? process.env.PROPERTY_SHRINK === '1' : LONG;
const REPLICAS = env('PROPERTY_REPLICAS', 2);

let service: Service;
let endpoint: MerchantEndpoint;
/** PROPERTY_PROCESSOR=stripe: every merchant on Stripe (stripe-mock, with Stripe's test cards' outcomes), with the commands Stripe supports. */
const STRIPE = process.env.PROPERTY_PROCESSOR === 'stripe';
const stripe = STRIPE ? new StripeProxy(stripeTestCardScript()) : null;
let runNumber = 0;
const stats = { runs: 0, commands: 0, startedAt: 0, byCommand: new Map<string, number>() };

beforeAll(async () => {
  // The geocoder loads its datasets on first use (seconds on a busy machine); not a command's time.
  loadGeoData();
  // The reconciler settles charges left `created` past its lease; the invariant uses the same lease.
  const stripeEnv: Record<string, string> = stripe ? { STRIPE_API_BASE_URL: await stripe.start() } : {};
  service = await startService({ replicas: REPLICAS, env: { RECONCILE_LEASE_SECONDS: String(RECONCILE_LEASE_SECONDS), ...stripeEnv } });
  endpoint = await new MerchantEndpoint().start();
  await installChargeAudit(service.deps.db);
  // The API and worker child processes load under tsx: more than a minute on a busy machine.
}, 300_000);
afterAll(async () => {
  await endpoint?.stop();
  await service?.stop();
  await stripe?.stop();
});

const initArb = fc.record({
  // A production merchant restricts a customer whose verified KYC name differs from the profile;
  // it has no simulator and refuses the sandbox's test cards.
  environment: fc.constantFrom<'sandbox' | 'production'>('sandbox', 'production'),
  review: fc.record({ enabled: fc.constantFrom(true, true, false), min: fc.constantFrom(100, 5_000) }),
  enabledEvents: fc.subarray([...OPTIONAL_EVENT_TYPES].filter((t) => t.startsWith('checkout.'))),
  expirySeconds: fc.constantFrom(4, 8, 60),
  holdSeconds: fc.constantFrom(0, 1),
  holdAnswer: answerArb.filter((a) => a !== 'slow'),
  // Every sequence starts with one checkout, so its first commands have something to act on.
  first: fc.record({
    flow: STRIPE ? fc.constantFrom(...DEPOSIT_FLOWS) : fc.constantFrom('deposit', 'preset_deposit', 'purchase', 'subscription', 'balance_withdrawal', 'preset_withdrawal', 'balance_withdrawal', 'preset_withdrawal' as const),
    amount: fc.constantFrom(100, 108, 2_500, 5_000, 10_000),
  }),
});

type Init = typeof initArb extends fc.Arbitrary<infer T> ? T : never;

interface Counts {
  runs: number;
  commands: number;
}

async function runSequence(seed: number, seedCounts: Counts, init: Init, commands: Iterable<fc.AsyncCommand<any, World, true>>): Promise<void> {
  const route = `run${++runNumber}`;
  const url = endpoint.open(route, { holdAnswer: init.holdAnswer, deliveryAnswer: 'ok' });
  const world = await openWorld(service, endpoint, route, {
    webhook_url: url,
    enabled_events: init.enabledEvents,
    review: { enabled: init.review.enabled, min_amount_cents: init.review.min },
    checkout_expiry_seconds: init.expirySeconds,
    sandbox_settlement_seconds: 1,
    sandbox_hold_seconds: init.holdSeconds,
    ...(STRIPE
      ? { card_processor: 'stripe', payment_methods: { deposit: ['credit_card'], withdrawal: [] }, stripe: { secret_key: init.environment === 'sandbox' ? 'sk_test_51PropertyKey0001' : 'sk_live_51PropertyKey0001' } }
      : { payment_methods: { deposit: ['credit_card', 'bank_account', 'apple_pay', 'google_pay', 'paypal', 'venmo', 'crypto'], withdrawal: ['credit_card', 'bank_account', 'apple_pay', 'google_pay', 'paypal', 'venmo', 'crypto'] } }),
    // Off to start with (production's default is on); commands turn them on. Every request comes
    // from 127.0.0.1, so the IP limit is kept out of reach.
    velocity_limits: { enabled: false, card_attempts_per_hour: 10, ip_attempts_per_hour: 100_000 },
  }, init.environment);
  const model = initialModel({ ...init, slowLeft: LONG ? 2 : 1, ...(STRIPE ? { processor: 'stripe' as const } : {}) });
  stats.runs += 1;
  seedCounts.runs += 1;
  try {
    const first = new CreateCheckout(init.first.flow, init.first.amount);
    world.trace.push(`(setup) ${first}`);
    await first.act(model, world);
    await fc.asyncModelRun(() => ({ model, real: world }), commands);
    // Long runs report progress as they go (jest shows console output only at the end), so a run
    // stopped early still says how many commands it covered.
    if (LONG) process.stderr.write(`property progress: seed ${seed}, ${stats.runs} sequences, ${stats.commands} commands in ${((Date.now() - stats.startedAt) / 1000).toFixed(0)} s\n`);
    // At rest: no charge in progress, every enabled event delivered, then the full check.
    await settle(world, 25_000);
    await checkInvariants(world, model, true);
    await checkWorkflowsFinished(world, model, 5_000);
    // With Stripe: every request the service made is valid by Stripe's API description.
    if (stripe?.rejected.length) throw new Error(`stripe-mock refused requests: ${JSON.stringify(stripe.rejected)}`);
  } catch (error) {
    (error as Error).message += `\n  seed ${seed}, ${init.environment} merchant ${world.merchant.id}, ran: ${world.trace.join(' ; ')}`;
    throw error;
  } finally {
    // Every command that ran counts, in a failed sequence too.
    stats.commands += world.trace.length;
    seedCounts.commands += world.trace.length;
    for (const line of world.trace) {
      const name = line.replace(/^\(setup\) /, '').split('(')[0]!;
      stats.byCommand.set(name, (stats.byCommand.get(name) ?? 0) + 1);
    }
    const r = endpoint.route(route);
    r.onHold = undefined;
  }
}

/** The seeds of this run: the list given, or FIRST_SEED and the ones after it (long runs). */
function seedAt(i: number): number | undefined {
  if (SEED_LIST) return SEED_LIST[i];
  if (!LONG) return i === 0 ? FIRST_SEED : undefined;
  return (FIRST_SEED + i * 7_919) % 2 ** 31;
}

interface SeedResult {
  seed: number;
  sequences: number;
  commands: number;
  seconds: number;
  failure?: string;
}

async function checkSeed(seed: number): Promise<SeedResult> {
  const startedAt = Date.now();
  const counts: Counts = { runs: 0, commands: 0 };
  const property = fc.asyncProperty(initArb, fc.commands([commandArbitrary({ stripe: STRIPE })], { maxCommands: COMMANDS, size: 'max' }), (init, commands) => runSequence(seed, counts, init, commands));
  // PROPERTY_PATH replays (and shrinks) one reported failure: the `path` of its report.
  const path = process.env.PROPERTY_PATH;
  const details = await fc.check(property, { seed, numRuns: RUNS, endOnFailure: !SHRINK, verbose: 1, ...(path ? { path } : {}) });
  const result: SeedResult = { seed, sequences: counts.runs, commands: counts.commands, seconds: Math.round((Date.now() - startedAt) / 1000) };
  if (details.failed) {
    result.failure = `${fc.defaultReportMessage(details) ?? 'property failed'}\n\nFailure: ${(details.errorInstance as Error | undefined)?.message ?? String(details.errorInstance)}`;
  }
  if (LONG) process.stderr.write(`property seed ${seed}: ${result.sequences} sequences, ${result.commands} commands in ${result.seconds} s${result.failure ? ', FAILED' : ''}\n`);
  return result;
}

describe('money rules hold for any sequence of commands (model-based, fast-check)', () => {
  const what = LONG ? `seeds from ${SEED_LIST ? SEED_LIST.join(',') : FIRST_SEED} until ${MIN_COMMANDS} commands, ${RUNS} sequences of up to ${COMMANDS} commands per seed` : `${RUNS} sequences of up to ${COMMANDS} commands, seed ${SEED_LIST?.[0] ?? FIRST_SEED}`;
  it(what, async () => {
    console.log(`property: ${what}, ${PARALLEL} at a time${IGNORED.size ? `, ignoring ${[...IGNORED].join(', ')}` : ''}`);
    stats.startedAt = Date.now();
    const results: SeedResult[] = [];
    let next = 0;
    const more = () => !results.some((r) => r.failure) && (next === 0 || stats.commands < MIN_COMMANDS) && Date.now() - stats.startedAt < MAX_MINUTES * 60_000;
    const lane = async () => {
      for (;;) {
        if (!more()) return;
        const seed = seedAt(next++);
        if (seed === undefined) return;
        results.push(await checkSeed(seed));
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, PARALLEL) }, lane));
    const seconds = ((Date.now() - stats.startedAt) / 1000).toFixed(0);
    // How often a checkout's workflow moved to a fresh run mid-sequence (the test server suggests it at 100 events).
    const continued = await service.deps.temporal.workflow
      .count(`WorkflowType = 'checkoutWorkflow' AND ExecutionStatus = 'ContinuedAsNew'`)
      .then((c) => String(c.count), () => 'unknown');
    const failed = results.filter((r) => r.failure);
    const byCommand = [...stats.byCommand.entries()].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${n}`).join(', ');
    console.log(
      `property: ${results.length} seeds (${results.map((r) => `${r.seed}: ${r.sequences} sequences, ${r.commands} commands, ${r.seconds} s${r.failure ? ', failed' : ''}`).join('; ')}); ` +
        `${stats.runs} sequences, ${stats.commands} commands in ${seconds} s; ${continued} checkout runs continued as new on this Temporal server\n` +
        `commands run: ${byCommand}${failed.length ? `\nfailed: replay with PROPERTY_SEED=${failed[0]!.seed} PROPERTY_RUNS=${RUNS} PROPERTY_COMMANDS=${COMMANDS}` : ''}`,
    );
    if (failed.length) throw new Error(failed.map((r) => `seed ${r.seed}: ${r.failure}`).join('\n\n'));
    // Every API process took a share of the sequences' requests.
    if (service.proxy) expect([...service.proxy.served.values()].filter((n) => n > 0)).toHaveLength(REPLICAS);
    if (stats.commands < MIN_COMMANDS) console.log(`property: stopped after PROPERTY_MAX_MINUTES=${MAX_MINUTES} (or the seed list) with ${stats.commands} of ${MIN_COMMANDS} commands`);
  }, (MAX_MINUTES + 30) * 60 * 1000);
});
