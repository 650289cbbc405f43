import { createHash } from 'node:crypto';
import pino from 'pino';
import { KYC_PROVIDERS } from '../../../src/kyc/schemas';
import { latestKycRecord } from '../../../src/storage/kyc-records';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { waitFor } from '../../support/fixtures';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';

let service: Service;
let merchant: MerchantCredentials;
let receiver: WebhookReceiver;
/** Every line the service logs (at debug level), kept in memory instead of printed. */
const logLines: string[] = [];

const upsert = (body: unknown, token = merchant.api_key) => request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', { token, body });

async function newCustomer(m: MerchantCredentials = merchant): Promise<string> {
  const res = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: m.api_key, body: uniqueCustomer() });
  if (res.status !== 201) throw new Error(`customer: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A complete valid submission (every required field, no optional one). */
const kycBody = (customerId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  customer_id: customerId,
  first_name: 'Ada',
  last_name: 'Lovelace',
  date_of_birth: '1985-12-10',
  address_line_1: '12 St James Square',
  city: 'New York',
  state: 'NY',
  postal_code: '10001',
  country: 'USA',
  provider: 'persona',
  verified: true,
  ...overrides,
});

const RECORD_KEYS = [
  'id', 'first_name', 'last_name', 'email', 'phone_number', 'date_of_birth', 'address_line_1',
  'address_line_2', 'city', 'state', 'postal_code', 'country', 'provider', 'verified',
].sort();

useServiceWithReceiver((env) => ({ service, receiver } = env), {
  // Debug level, so the log test sees every line the service writes.
  service: { env: { LOG_LEVEL: 'debug' } },
  afterStart: async () => {
    // The logger's destination, swapped for the whole file: every line the service writes (the
    // error handler's and the worker's included) is captured here instead of reaching stdout.
    (service.deps.logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = { write: (line: string) => void logLines.push(line) };
    merchant = await onboard(service);
  },
});

describe('POST /api/v1/kyc/upsert: fields', () => {
  it('creates a record (201) with exactly the contract fields', async () => {
    const customerId = await newCustomer();
    const res = await upsert(kycBody(customerId, { last_four_ssn: '1234' }));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(RECORD_KEYS);
    expect(res.body.id).toMatch(/^id_[A-Za-z0-9]{24}$/);
    expect(res.body).toMatchObject({ first_name: 'Ada', date_of_birth: '1985-12-10', state: 'NY', country: 'USA', provider: 'persona', verified: true });
    expect(res.body).toMatchObject({ address_line_2: null, email: null, phone_number: null });
  });

  it('echoes the optional fields when given (address_line_2 may be null)', async () => {
    const customerId = await newCustomer();
    const optional = { address_line_2: 'Apt 4', email: 'ada@example.com', phone_number: '+1 555 010 0199' };
    const res = await upsert(kycBody(customerId, optional));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(optional);
    const nullLine2 = await upsert(kycBody(customerId, { provider: 'onfido', address_line_2: null }));
    expect(nullLine2.status).toBe(201);
    expect(nullLine2.body.address_line_2).toBeNull();
  });

  it.each(['customer_id', 'first_name', 'last_name', 'date_of_birth', 'address_line_1', 'city', 'state', 'postal_code', 'country', 'provider', 'verified'])(
    'requires %s (422 {error, hint} naming it)',
    async (field) => {
      const body = kycBody(await newCustomer());
      delete body[field];
      const res = await upsert(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ request_id: expect.any(String), error: expect.stringContaining(field), hint: expect.any(String) });
    },
  );

  it.each([
    ['customer_id', ''],
    ['customer_id', 42],
    ['first_name', ''],
    ['last_name', ''],
    ['last_name', null],
    ['date_of_birth', '1990-13-01'],
    ['date_of_birth', '1990-02-30'],
    ['date_of_birth', '10/12/1985'],
    ['date_of_birth', '1985-12-10T00:00:00Z'],
    ['date_of_birth', '0000-01-01'],
    ['date_of_birth', `${new Date().getUTCFullYear() + 1}-01-01`],
    ['address_line_1', ''],
    ['address_line_2', 12],
    ['city', ''],
    ['state', 'ny'],
    ['state', 'N'],
    ['state', 'NYC'],
    ['state', 'N1'],
    ['postal_code', ''],
    ['postal_code', 10001],
    // Audit regression: blanks alone passed min length 1 for the required text fields.
    ['first_name', '   '],
    ['last_name', '\t'],
    ['address_line_1', ' '],
    ['city', '  '],
    ['postal_code', ' \n'],
    ['country', 'US'],
    ['country', 'usa'],
    ['country', 'USAA'],
    ['country', 'U5A'],
    ['provider', 'Persona'],
    ['provider', 'acme_identity'],
    ['provider', ''],
    ['verified', 'true'],
    ['verified', 1],
    ['verified', null],
    ['phone_number', 5550100199],
    ['email', true],
    ['last_four_ssn', '123'],
    ['last_four_ssn', '12345'],
    ['last_four_ssn', '12a4'],
    ['last_four_ssn', 1234],
    ['last_four_ssn', null],
  ])('rejects %s = %j with 422 {error, hint}', async (field, value) => {
    const res = await upsert(kycBody(await newCustomer(), { [field]: value }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ request_id: expect.any(String), error: expect.stringContaining(field), hint: expect.any(String) });
  });

  it('rejects an unknown field, a non-object body and unparseable JSON', async () => {
    const customerId = await newCustomer();
    const unknown = await upsert(kycBody(customerId, { ssn: '123456789' }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.hint).toContain('unknown field(s): ssn');
    expect((await upsert([kycBody(customerId)])).status).toBe(422);
    const notJson = await request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', { token: merchant.api_key, rawBody: '{"customer_id":' });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
  });

  it('accepts each of the 13 providers, and the hint of a wrong one lists them', async () => {
    expect(KYC_PROVIDERS).toHaveLength(13);
    expect(new Set(KYC_PROVIDERS).size).toBe(13);
    for (const provider of KYC_PROVIDERS) expect(provider).toMatch(/^[a-z_]+$/);
    const customerId = await newCustomer();
    for (const provider of KYC_PROVIDERS) {
      const res = await upsert(kycBody(customerId, { provider }));
      expect(res.status).toBe(201);
      expect(res.body.provider).toBe(provider);
    }
    const wrong = await upsert(kycBody(customerId, { provider: 'nope' }));
    expect(wrong.body.hint).toContain('stripe_identity');
  });

  it('answers 422 like a missing customer for another merchant\'s customer', async () => {
    const other = await onboard(service);
    const foreign = await upsert(kycBody(await newCustomer(other)));
    const missing = await upsert(kycBody('cus_doesnotexist'));
    expect(foreign.status).toBe(422);
    expect(missing.status).toBe(422);
    expect(foreign.body.error).toBe('Customer not found.');
    expect(missing.body.error).toBe(foreign.body.error);
  });

  it('authenticates with the API key only (422, never 401)', async () => {
    const body = kycBody(await newCustomer());
    expect(await upsert(body, merchant.client_secret)).toMatchObject({ status: 422, body: { error: 'API key not found.' } });
    expect(await upsert(body, 'key_wrong')).toMatchObject({ status: 422, body: { error: 'API key not found.' } });
    const bare = await request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', { headers: { authorization: merchant.api_key }, body });
    expect(bare.status).toBe(422);
  });

  it('answers 404 {error, hint} when KYC is disabled for the business, whatever the body', async () => {
    const off = await onboard(service, { settings: { kyc_enabled: false } });
    const customerId = await newCustomer(off);
    for (const body of [kycBody(customerId), { nonsense: true }]) {
      const res = await upsert(body, off.api_key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ request_id: expect.any(String), error: expect.stringMatching(/disabled/i), hint: expect.stringMatching(/disabled for this business.*contact the service operator/i) });
    }
    expect(await service.deps.db('kyc_records').where({ merchant_id: off.id }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});

describe('POST /api/v1/kyc/upsert: create or update', () => {
  it('updates the record of the same provider (200, same id, every field replaced) and creates one per other provider (201)', async () => {
    const customerId = await newCustomer();
    const first = await upsert(kycBody(customerId, { address_line_2: 'Apt 4', email: 'a@example.com', last_four_ssn: '4321' }));
    expect(first.status).toBe(201);
    const again = await upsert(kycBody(customerId, { verified: false, city: 'Brooklyn' }));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, verified: false, city: 'Brooklyn', address_line_2: null, email: null });
    const stored = await service.deps.db('kyc_records').where({ id: first.body.id }).first();
    // The record is exactly the latest submission: the omitted last_four_ssn is cleared too.
    expect(stored.last_four_ssn_sealed).toBeNull();

    const other = await upsert(kycBody(customerId, { provider: 'jumio' }));
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(first.body.id);
    expect(await service.deps.db('kyc_records').where({ customer_id: customerId }).count({ n: '*' })).toEqual([{ n: 2 }]);
  });

  it('keeps several records per customer; the latest written (created or updated) is the one read', async () => {
    const customerId = await newCustomer();
    const latest = () => latestKycRecord(service.deps.db, merchant.id, customerId);
    expect(await latest()).toBeUndefined();
    const persona = await upsert(kycBody(customerId, { provider: 'persona', verified: true }));
    expect((await latest())!.id).toBe(persona.body.id);
    // A newer unverified record sends the customer back through verification.
    const veriff = await upsert(kycBody(customerId, { provider: 'veriff', verified: false }));
    expect(await latest()).toMatchObject({ id: veriff.body.id, verified: false });
    // Persona re-sends: its record becomes the latest again.
    await upsert(kycBody(customerId, { provider: 'persona', verified: true, first_name: 'Augusta' }));
    expect(await latest()).toMatchObject({ id: persona.body.id, verified: true, first_name: 'Augusta' });
    // Scoped by merchant: another merchant never reads it.
    expect(await latestKycRecord(service.deps.db, (await onboard(service)).id, customerId)).toBeUndefined();
  });

  it('creates exactly one record under concurrent submissions from the same provider', async () => {
    const customerId = await newCustomer();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => upsert(kycBody(customerId, { city: `City ${i}` }))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
  });
});

describe('customer.kyc.created', () => {
  const kycEvents = (customerId: string) => service.deps.db('events').where({ customer_id: customerId, type: 'customer.kyc.created' }).orderBy('seq');

  it('is delivered (when enabled) for every created record, never for an update, and carries no last_four_ssn', async () => {
    const m = await onboard(service, { settings: { webhook_url: receiver.url, enabled_events: ['customer.kyc.created'] } });
    const customerId = await newCustomer(m);
    const created = await upsert(kycBody(customerId, { last_four_ssn: '9731' }), m.api_key);
    await upsert(kycBody(customerId, { verified: false, last_four_ssn: '9731' }), m.api_key);
    const second = await upsert(kycBody(customerId, { provider: 'socure' }), m.api_key);

    const events = await kycEvents(customerId);
    expect(events.map((e) => e.enabled)).toEqual([true, true]);
    const delivered = await waitFor(() => {
      const got = receiver.ofType('customer.kyc.created').filter((r) => r.body.data.customer.id === customerId);
      return got.length === 2 ? got : undefined;
    }, 20_000, 'two customer.kyc.created deliveries');
    const first = delivered.find((r) => r.body.data.kyc.id === created.body.id)!;
    expect(Object.keys(first.body)).toEqual(['event_id', 'data', 'type']);
    expect(Object.keys(first.body.data)).toEqual(['customer', 'kyc']);
    expect(first.body.data.customer).toMatchObject({ id: customerId });
    expect(first.body.data.kyc).toEqual(created.body);
    expect(delivered.map((r) => r.body.data.kyc.id).sort()).toEqual([created.body.id, second.body.id].sort());
    for (const r of delivered) {
      expect(r.rawBody).not.toContain('last_four_ssn');
      // The SSN's four digits as a JSON value: bare, they also turn up by chance inside the random
      // email and ids of a delivery (a full run once made person2981997310…@example.com).
      expect(r.rawBody).not.toContain('"9731"');
    }
  });

  it('is recorded but not delivered when the merchant has not enabled it', async () => {
    const m = await onboard(service, { settings: { webhook_url: receiver.url } });
    const customerId = await newCustomer(m);
    expect((await upsert(kycBody(customerId), m.api_key)).status).toBe(201);
    const events = await kycEvents(customerId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ enabled: false, delivery_status: 'not_enabled' });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests.filter((r) => r.body?.data?.customer?.id === customerId)).toHaveLength(0);
  });
});

describe('last_four_ssn', () => {
  it('appears in no response and no log line, and the database holds it only sealed', async () => {
    const ssn = '8642';
    logLines.length = 0;
    const customerId = await newCustomer();
    const created = await upsert(kycBody(customerId, { last_four_ssn: ssn }));
    expect(created.status).toBe(201);
    const recordId: string = created.body.id;
    const updated = await upsert(kycBody(customerId, { last_four_ssn: ssn, verified: false }));
    expect(updated.status).toBe(200);
    const refused = [
      await upsert(kycBody(customerId, { last_four_ssn: ssn, state: 'xx' })),
      await upsert(kycBody('cus_missing', { last_four_ssn: ssn })),
      await upsert(kycBody(customerId, { last_four_ssn: ssn, extra: 1 })),
      await upsert(kycBody(customerId, { last_four_ssn: ssn }), 'key_wrong'),
    ];
    expect(refused.map((r) => r.status)).toEqual([422, 422, 422, 422]);
    const texts = [created.text, updated.text, ...refused.map((r) => r.text)];

    for (const text of texts) {
      expect(text).not.toContain('last_four_ssn');
      expect(text).not.toContain(ssn);
    }
    // The service did log (so this is not vacuous): the upserts, by identifiers only.
    expect(logLines.some((l) => l.includes(recordId))).toBe(true);
    for (const line of logLines) {
      // Timestamps, pids and host names are digits that could contain the value by chance.
      const { time: _t, pid: _p, hostname: _h, ...rest } = JSON.parse(line);
      expect(JSON.stringify(rest)).not.toContain(ssn);
    }

    const row = await service.deps.db('kyc_records').where({ id: recordId }).first();
    expect(row.last_four_ssn_sealed).toMatch(/^v1\./);
    expect(Object.values(row).map(String)).not.toContain(ssn);
    expect(service.deps.sealer.open(row.last_four_ssn_sealed)).toBe(ssn);
  });

  it('cannot be recovered from the idempotency record of a keyed upsert, which still replays', async () => {
    const customerId = await newCustomer();
    const body = kycBody(customerId, { last_four_ssn: '5309' });
    const key = `kyc-ssn-${customerId}`;
    const keyed = (b: unknown) => request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', { token: merchant.api_key, body: b, headers: { 'Idempotency-Key': key } });
    const created = await keyed(body);
    expect(created.status).toBe(201);

    // The stored answer holds every other field of the request; trying the 10,000 values against
    // the stored request digest must find none of them.
    const row = await service.deps.db('idempotency_keys').where({ scope: `merchant:${merchant.id}`, key }).first();
    expect(row.response_body).not.toContain('5309');
    const matches: string[] = [];
    for (let n = 0; n < 10_000; n++) {
      const guess = String(n).padStart(4, '0');
      const digest = createHash('sha256').update(`POST /api/v1/kyc/upsert\n${JSON.stringify({ ...body, last_four_ssn: guess })}`).digest('hex');
      if (digest === row.request_hash) matches.push(guess);
    }
    expect(matches).toEqual([]);

    const replayed = await keyed(body);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(created.body);
    expect((await keyed({ ...body, last_four_ssn: '5310' })).status).toBe(422);
  });
});
