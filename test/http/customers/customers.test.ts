import { startService, type Service } from '../../support/harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';

let service: Service;
let merchant: MerchantCredentials;
const post = (body: unknown, token = merchant.api_key) => request(service.baseUrl, 'POST', '/api/v1/customers', { token, body });
const patch = (id: string, body: unknown, token = merchant.api_key) =>
  request(service.baseUrl, 'PATCH', `/api/v1/customers/${id}`, { token, body });
const search = (query: string, token = merchant.api_key) => request(service.baseUrl, 'GET', `/api/v1/customers/search?${query}`, { token });

beforeAll(async () => {
  service = await startService({ worker: false });
  merchant = await onboard(service);
});
afterAll(async () => service.stop());

describe('POST /api/v1/customers', () => {
  it('creates a customer with the contract shape', async () => {
    const fields = uniqueCustomer({ date_of_birth: '1990-02-28', internal_id: 'crm-1-' + Date.now() });
    const res = await post(fields);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['created_at', 'date_of_birth', 'email', 'first_name', 'id', 'internal_id', 'last_name', 'phone_number'].sort(),
    );
    expect(res.body.id).toMatch(/^cus_[A-Za-z0-9]{24}$/);
    expect(res.body).toMatchObject({ ...fields });
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
  });

  it('echoes an integer internal_id as a string and null when absent', async () => {
    const id = Math.floor(Math.random() * 1e9);
    const withInt = await post(uniqueCustomer({ internal_id: id }));
    expect(withInt.status).toBe(201);
    expect(withInt.body.internal_id).toBe(String(id));
    const without = await post(uniqueCustomer());
    expect(without.body.internal_id).toBeNull();
    expect(without.body.date_of_birth).toBeNull();
  });

  it('requires email, first_name and last_name by default', async () => {
    for (const missing of ['email', 'first_name', 'last_name']) {
      const fields: Record<string, unknown> = uniqueCustomer();
      delete fields[missing];
      const res = await post(fields);
      expect(res.status).toBe(422);
      expect(res.body.error).toContain(missing);
      expect(typeof res.body.hint).toBe('string');
    }
  });

  it('names_and_email_or_phone: names plus email or phone', async () => {
    const m = await onboard(service, { settings: { customer_fields: 'names_and_email_or_phone' } });
    const { email, phone_number, ...names } = uniqueCustomer();
    expect((await post({ ...names, phone_number }, m.api_key)).status).toBe(201);
    expect((await post({ ...names, email }, m.api_key)).status).toBe(201);
    const neither = await post(names, m.api_key);
    expect(neither.status).toBe(422);
    expect(neither.body.error).toContain('email or phone_number');
    const noNames = await post({ email: uniqueCustomer().email }, m.api_key);
    expect(noNames.status).toBe(422);
  });

  it('email_only: creates customers without names (null)', async () => {
    const m = await onboard(service, { settings: { customer_fields: 'email_only' } });
    const res = await post({ email: uniqueCustomer().email }, m.api_key);
    expect(res.status).toBe(201);
    expect(res.body.first_name).toBeNull();
    expect(res.body.last_name).toBeNull();
    expect((await post({ first_name: 'A', last_name: 'B' }, m.api_key)).status).toBe(422);
  });

  it.each([
    ['email', { email: 'not-an-email' }],
    ['first_name', { first_name: '' }],
    ['last_name', { last_name: '' }],
    ['phone_number', { phone_number: '+15551234567' }],
    ['phone_number', { phone_number: '555-123-4567' }],
    ['phone_number', { phone_number: '555123456' }],
    ['date_of_birth', { date_of_birth: '1990-13-01' }],
    ['date_of_birth', { date_of_birth: '01/02/1990' }],
    ['internal_id', { internal_id: 1.5 }],
    ['internal_id', { internal_id: true }],
    ['unknown field', { nickname: 'Ada' }],
  ])('rejects an invalid %s with 422 {error, hint}', async (_field, override) => {
    const res = await post(uniqueCustomer(override));
    expect(res.status).toBe(422);
    expect(typeof res.body.error).toBe('string');
    expect(typeof res.body.hint).toBe('string');
  });

  it.each<[unknown, string]>([
    [1.5, 'must be a string or an integer'],
    [true, 'must be a string or an integer'],
    [null, 'must be a string or an integer'],
    [2 ** 53, 'must be a string or an integer within ±9007199254740991 (send a larger identifier as a string)'],
  ])('says what internal_id takes when it is %p (audit)', async (value, message) => {
    // Audit regression: a union's own failure read "internal_id: Invalid input", which names no fix.
    const res = await post(uniqueCustomer({ internal_id: value }));
    expect(res.status).toBe(422);
    expect(res.body.error).toBe(`Request body is invalid: internal_id: ${message}.`);
    expect(res.body.hint).toBe(`internal_id: ${message}`);
  });

  it('refuses a blank first_name or last_name on create and update, as it refuses an empty one (audit)', async () => {
    // Audit regression: min length 1 let "   " through, so an account that requires names
    // (names_and_email, names_and_email_or_phone) took customers whose legal names were blank.
    for (const blank of [' ', '   ', '\t\n']) {
      for (const field of ['first_name', 'last_name']) {
        const res = await post(uniqueCustomer({ [field]: blank }));
        expect(res.status).toBe(422);
        expect(res.body.error).toContain(field);
      }
    }
    const created = (await post(uniqueCustomer())).body;
    const res = await patch(created.id, { last_name: '  ' });
    expect(res.status).toBe(422);
    expect(res.body.error).toContain('last_name');
    // Names with inner or surrounding blanks around letters are names, kept as given.
    expect((await post(uniqueCustomer({ first_name: ' Mary Ann ' }))).body.first_name).toBe(' Mary Ann ');
  });

  it('rejects a non-object or unparseable body in the contract shape, never 500', async () => {
    const notJson = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, rawBody: '{"email":' });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
    const array = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body: [1, 2] });
    expect(array.status).toBe(422);
    const noBody = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key });
    expect(noBody.status).toBe(422);
    expect(noBody.body).toMatchObject({ error: 'Request body is missing.', hint: 'Send a JSON object with Content-Type: application/json.' });
    // The merchant API reads a body as JSON whatever its Content-Type: JSON sent as text/plain is the customer meant.
    const plain = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, rawBody: JSON.stringify(uniqueCustomer()), headers: { 'content-type': 'text/plain' } });
    expect(plain.status).toBe(201);
  });

  it('keeps email (case-insensitively), phone_number and internal_id unique within the business', async () => {
    const first = uniqueCustomer({ internal_id: `dup-${Date.now()}` });
    expect((await post(first)).status).toBe(201);
    const sameEmail = await post(uniqueCustomer({ email: first.email.toUpperCase() }));
    expect(sameEmail.status).toBe(422);
    expect(sameEmail.body.error).toContain('email');
    const samePhone = await post(uniqueCustomer({ phone_number: first.phone_number }));
    expect(samePhone.status).toBe(422);
    expect(samePhone.body.error).toContain('phone_number');
    const sameInternal = await post(uniqueCustomer({ internal_id: first.internal_id }));
    expect(sameInternal.status).toBe(422);
    expect(sameInternal.body.error).toContain('internal_id');
  });

  it('holds uniqueness under concurrent creates (database constraints, not read-then-write)', async () => {
    const fields = uniqueCustomer();
    const results = await Promise.all(Array.from({ length: 8 }, () => post({ ...fields })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 422)).toHaveLength(7);
    const found = await search(`email=${encodeURIComponent(fields.email)}`);
    expect(found.body.results).toHaveLength(1);
  });
});

describe('PATCH /api/v1/customers/{id}', () => {
  it('changes only the given fields and answers updated_at', async () => {
    const created = (await post(uniqueCustomer({ date_of_birth: '1980-01-01' }))).body;
    const res = await patch(created.id, { first_name: 'Grace' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...created, first_name: 'Grace', created_at: created.created_at });
    expect(new Date(res.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(created.created_at).getTime());
  });

  it('answers 400 {error, hint} for a body that is not JSON', async () => {
    const created = (await post(uniqueCustomer())).body;
    const res = await request(service.baseUrl, 'PATCH', `/api/v1/customers/${created.id}`, { token: merchant.api_key, rawBody: 'nope{' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
  });

  // Audit regression: a body sent with another Content-Type was not parsed at all, and answered 422
  // ("at least one field") instead of 400 when it was not JSON, or ignored when it was.
  it.each(['text/plain', 'application/x-www-form-urlencoded'])('reads the body as JSON whatever its Content-Type (%s): 400 when it is not JSON, applied when it is', async (type) => {
    const created = (await post(uniqueCustomer())).body;
    const bad = await request(service.baseUrl, 'PATCH', `/api/v1/customers/${created.id}`, { token: merchant.api_key, rawBody: '{not json', headers: { 'content-type': type } });
    expect(bad.status).toBe(400);
    const good = await request(service.baseUrl, 'PATCH', `/api/v1/customers/${created.id}`, { token: merchant.api_key, rawBody: '{"first_name":"Ada"}', headers: { 'content-type': type } });
    expect(good.status).toBe(200);
    expect(good.body.first_name).toBe('Ada');
  });

  it.each(['123', '"text"', 'null', 'true'])('answers 422 (an invalid value, not 400) for the JSON %s, which parses but is not an object', async (raw) => {
    const created = (await post(uniqueCustomer())).body;
    for (const [method, path] of [['PATCH', `/api/v1/customers/${created.id}`], ['POST', '/api/v1/customers'], ['POST', '/api/v1/checkouts']] as const) {
      const res = await request(service.baseUrl, method, path, { token: merchant.api_key, rawBody: raw });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ request_id: expect.any(String), error: expect.stringMatching(/^Request body is invalid: /), hint: expect.any(String) });
    }
    const unchanged = await request(service.baseUrl, 'GET', `/api/v1/customers/search?email=${encodeURIComponent(created.email)}`, { token: merchant.api_key });
    expect(unchanged.body.results).toEqual([expect.objectContaining({ id: created.id, first_name: created.first_name })]);
  });

  it.each([
    ['an empty body', {}],
    ['an unknown field', { nickname: 'x' }],
    ['internal_id (not updatable)', { internal_id: 'x' }],
    ['an invalid email', { email: 'x' }],
    ['an invalid phone', { phone_number: '123' }],
    ['an invalid date', { date_of_birth: '2001-02-30' }],
    ['an empty name', { last_name: '' }],
  ])('answers 422 {error, hint} for %s', async (_label, body) => {
    const created = (await post(uniqueCustomer())).body;
    const res = await patch(created.id, body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
  });

  it('answers 422 for a body-less request', async () => {
    const created = (await post(uniqueCustomer())).body;
    const res = await request(service.baseUrl, 'PATCH', `/api/v1/customers/${created.id}`, { token: merchant.api_key });
    expect(res.status).toBe(422);
  });

  it('answers 422 for a duplicate email or phone and for an unknown customer', async () => {
    const a = (await post(uniqueCustomer())).body;
    const b = (await post(uniqueCustomer())).body;
    const dupEmail = await patch(b.id, { email: a.email.toUpperCase() });
    expect(dupEmail.status).toBe(422);
    expect(dupEmail.body.hint).toEqual(expect.any(String));
    expect((await patch(b.id, { phone_number: a.phone_number })).status).toBe(422);
    const unknown = await patch('cus_unknown', { first_name: 'X' });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({ request_id: expect.any(String), error: 'Customer not found.', hint: expect.stringContaining('cus_unknown') });
  });
});

describe('GET /api/v1/customers/search', () => {
  it('matches email case-insensitively and answers the search shape', async () => {
    const created = (await post(uniqueCustomer({ internal_id: `s-${Date.now()}` }))).body;
    const res = await search(`email=${encodeURIComponent(created.email.toUpperCase())}`);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1);
    expect(Object.keys(res.body.results[0]).sort()).toEqual(
      ['created_at', 'email', 'first_name', 'id', 'internal_id', 'last_name', 'phone_number'].sort(),
    );
    expect(res.body.results[0].id).toBe(created.id);
  });

  it('normalises phone_number: a leading +1 and punctuation are stripped', async () => {
    const created = (await post(uniqueCustomer())).body;
    const p = created.phone_number as string;
    for (const form of [`+1${p}`, `+1 (${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}`, `${p.slice(0, 3)}.${p.slice(3, 6)}.${p.slice(6)}`]) {
      const res = await search(`phone_number=${encodeURIComponent(form)}`);
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: { id: string }) => r.id)).toEqual([created.id]);
    }
    const bad = await search('phone_number=12345');
    expect(bad.status).toBe(422);
    expect(bad.body.hint).toEqual(expect.any(String));
  });

  it('reads an unencoded + in the query (form-decoded to a space) as the +1 it was (audit)', async () => {
    // Audit regression: `?phone_number=+15551234567` sent as written arrives as " 15551234567",
    // since a query string decodes + as a space, so the +1 was not stripped and the search was 422.
    const created = (await post(uniqueCustomer())).body;
    const p = created.phone_number as string;
    for (const form of [`+1${p}`, `+1+${p.slice(0, 3)}+${p.slice(3)}`]) {
      const res = await search(`phone_number=${form}`);
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: { id: string }) => r.id)).toEqual([created.id]);
    }
    // Ten digits after a stray space are still the number itself, and an 11-digit number without + is not one.
    expect((await search(`phone_number=${encodeURIComponent(' ' + p)}`)).body.results.map((r: { id: string }) => r.id)).toEqual([created.id]);
    expect((await search(`phone_number=1${p}`)).status).toBe(422);
  });

  it('reads an unencoded + in email (form-decoded to a space) as the + it was (audit)', async () => {
    // Audit regression: `?email=ada+shop@example.com` sent as written arrives as
    // "ada shop@example.com" (a query string decodes + as a space): no email holds a space, so the
    // search answered no result for a customer that exists, and a create after it was a duplicate.
    const tag = `tag${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const created = (await post(uniqueCustomer({ email: `Ada+${tag}@example.com` }))).body;
    const res = await search(`email=ada+${tag}@example.com`);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { id: string }) => r.id)).toEqual([created.id]);
    expect((await search(`email=${encodeURIComponent(`ada+${tag}@example.com`)}`)).body.results).toHaveLength(1);
  });

  it('matches internal_id exactly and combines parameters with AND', async () => {
    const created = (await post(uniqueCustomer({ internal_id: 987654 + Math.floor(Math.random() * 1e6) }))).body;
    expect((await search(`internal_id=${created.internal_id}`)).body.results).toHaveLength(1);
    expect((await search(`internal_id=${created.internal_id}&email=${encodeURIComponent(created.email)}`)).body.results).toHaveLength(1);
    expect((await search(`internal_id=${created.internal_id}&email=other@example.com`)).body.results).toHaveLength(0);
  });

  it('always answers results, possibly empty, and needs at least one parameter', async () => {
    const none = await search('email=nobody-here@example.com');
    expect(none.body).toEqual({ results: [] });
    const empty = await search('');
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
  });
});
