// The connector test kit: the processor interface's rules, run against every connector. A
// connector passes the kit by describing how to make each scenario happen (a test card, a scripted
// answer from its processor's mock); a scenario it cannot make is skipped and says so.
import { InvalidPaymentMethod, ProcessorUnavailable, type CardInput, type ChargeOutcome, type Processor } from '../../../src/processors';

export const KIT_SCENARIOS = [
  'approve',
  'decline',
  'insufficient_funds',
  'threeds',
  'refund_declined',
  'rate_limited',
  'connection_lost',
  'bad_key',
  'idempotency_conflict',
] as const;
export type KitScenario = (typeof KIT_SCENARIOS)[number];

export interface KitConnector {
  name: string;
  environment: 'sandbox' | 'production';
  /** The processor and the card with which the scenario happens, or undefined when the connector cannot make it. */
  scenario(scenario: KitScenario): { processor: Processor; card: CardInput } | undefined;
  /** A remote connector's processor sees the idempotency keys it was sent; a local one answers a repeated key the same. */
  sentIdempotencyKeys?(path: string): string[];
}

const FINGERPRINT_KEY = 'connector-kit-fingerprint-key';
const nextYear = new Date().getUTCFullYear() + 1;
let sequence = 0;
const chargeId = () => `ch_kit_${process.pid}_${++sequence}`;

function expectCardFields(outcome: ChargeOutcome): void {
  expect(typeof outcome.processor_charge_id).toBe('string');
  expect(outcome.processor_charge_id.length).toBeGreaterThan(0);
  for (const field of ['avs_result', 'cvv_result', 'network_authorization_code'] as const) {
    expect(outcome[field] === null || typeof outcome[field] === 'string').toBe(true);
  }
  if (outcome.threeds) expect(outcome.threeds).toEqual({ version: expect.any(String), authenticated: expect.any(Boolean), eci: expect.any(String) });
}

export function runConnectorKit(connector: KitConnector): void {
  const when = (scenario: KitScenario) => (connector.scenario(scenario) ? it : it.skip);
  const made = (scenario: KitScenario) => connector.scenario(scenario)!;

  async function tokenized(scenario: KitScenario) {
    const { processor, card } = made(scenario);
    const method = await processor.tokenize({ type: 'card', card }, FINGERPRINT_KEY, connector.environment);
    return { processor, method, card };
  }

  async function charged(scenario: KitScenario, id = chargeId()) {
    const { processor, method } = await tokenized(scenario);
    const outcome = await processor.charge({ token: method.processor_token, payment_type: 'card', amount_cents: 1250, transaction_type: 'credit', idempotency_key: id });
    return { processor, method, outcome, id };
  }

  describe(`connector kit: ${connector.name}`, () => {
    when('approve')('tokenizes a card into a token that holds no card number, with its last four and a stable fingerprint', async () => {
      const { processor, method, card } = await tokenized('approve');
      expect(method.payment_type).toBe('card');
      expect(method.processor_token).not.toContain(card.number);
      expect(method.details.card).toMatchObject({ last4: card.number.slice(-4), exp_month: card.exp_month, exp_year: card.exp_year });
      const again = await processor.tokenize({ type: 'card', card }, FINGERPRINT_KEY, connector.environment);
      expect(again.fingerprint).toBe(method.fingerprint);
    });

    when('approve')('refuses card details no charge can succeed with before calling the processor', async () => {
      const { processor } = made('approve');
      const refused = (card: CardInput) => processor.tokenize({ type: 'card', card }, FINGERPRINT_KEY, connector.environment).then(() => null, (error: unknown) => error);
      const luhn = await refused({ number: '4242424242424241', exp_month: 12, exp_year: nextYear, cvc: '123' });
      expect(luhn).toBeInstanceOf(InvalidPaymentMethod);
      expect((luhn as InvalidPaymentMethod).code).toBe('invalid_number');
      const expired = await refused({ number: '4242424242424242', exp_month: 1, exp_year: 2001, cvc: '123' });
      expect((expired as InvalidPaymentMethod).code).toBe('invalid_expiry');
    });

    when('approve')('an approved charge succeeds with its processor charge id and card-network fields', async () => {
      const { outcome } = await charged('approve');
      expect(outcome.kind).toBe('succeeded');
      expect(outcome.failure_code).toBeUndefined();
      expectCardFields(outcome);
    });

    when('approve')('a retried charge is sent with the same idempotency key and makes no second charge', async () => {
      const { processor, method, outcome, id } = await charged('approve');
      const again = await processor.charge({ token: method.processor_token, payment_type: 'card', amount_cents: 1250, transaction_type: 'credit', idempotency_key: id });
      if (connector.sentIdempotencyKeys) expect(connector.sentIdempotencyKeys('/v1/payment_intents').filter((key) => key === id)).toHaveLength(2);
      else expect(again).toEqual(outcome);
    });

    when('decline')('a declined charge fails with a failure code and a readable message', async () => {
      const { outcome } = await charged('decline');
      expect(outcome.kind).toBe('failed');
      expect(outcome.failure_code).toBe('card_declined');
      expect(outcome.failure_message).toMatch(/\w+ \w+/);
      expectCardFields(outcome);
    });

    when('insufficient_funds')("a decline for insufficient funds keeps the processor's reason as the failure code", async () => {
      const { outcome } = await charged('insufficient_funds');
      expect(outcome).toMatchObject({ kind: 'failed', failure_code: 'insufficient_funds', failure_message: expect.stringMatching(/insufficient funds/) });
    });

    when('threeds')('a 3D Secure card is pending its challenge, or succeeded with its 3D Secure result', async () => {
      const { outcome } = await charged('threeds');
      expect(['pending', 'succeeded']).toContain(outcome.kind);
      if (outcome.kind === 'succeeded') expect(outcome.threeds).toMatchObject({ authenticated: true });
      expectCardFields(outcome);
    });

    for (const scenario of ['rate_limited', 'connection_lost'] as const) {
      when(scenario)(`${scenario.replace('_', ' ')}: the charge throws a retryable ProcessorUnavailable, to be retried with its key`, async () => {
        const error = await charged(scenario).then(() => null, (thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(ProcessorUnavailable);
        expect((error as ProcessorUnavailable).retryable).toBe(true);
      });
    }

    for (const scenario of ['bad_key', 'idempotency_conflict'] as const) {
      when(scenario)(`${scenario.replace('_', ' ')}: no retry can cure it, so the charge fails with processing_error`, async () => {
        const { outcome } = await charged(scenario);
        expect(outcome).toMatchObject({ kind: 'failed', failure_code: 'processing_error' });
      });
    }

    when('approve')('refunds an approved charge in full', async () => {
      const { processor, method, outcome, id } = await charged('approve');
      expect(processor.supportsRefunds).toBe(true);
      const refund = await processor.refund({ processor_charge_id: outcome.processor_charge_id, amount_cents: 1250, token: method.processor_token, idempotency_key: id });
      expect(refund).toEqual({ ok: true, processor_refund_id: expect.any(String) });
    });

    when('refund_declined')("a refund the processor declines answers its reason", async () => {
      const { processor, method, outcome, id } = await charged('refund_declined');
      const refund = await processor.refund({ processor_charge_id: outcome.processor_charge_id, amount_cents: 1250, token: method.processor_token, idempotency_key: id });
      expect(refund).toEqual({ ok: false, responsetext: expect.stringMatching(/\w+ \w+/) });
    });
  });
}
