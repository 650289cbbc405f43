import { settingsChanges } from '../../src/merchants/service';

describe("a settings change's audit details", () => {
  it('name each setting that moved with its value before and after, and none that stayed', () => {
    const before = { webhook_url: 'https://a.example/hooks', enabled_events: ['customer.unrestricted'], review: { enabled: false, min_amount_cents: 1 } };
    const after = { webhook_url: 'https://b.example/hooks', enabled_events: ['customer.unrestricted'], review: { enabled: true, min_amount_cents: 1 }, stripe: { secret_key_last4: '4242', webhook_secret_set: false } };
    expect(settingsChanges(before, after)).toEqual({
      webhook_url: { from: 'https://a.example/hooks', to: 'https://b.example/hooks' },
      review: { from: { enabled: false, min_amount_cents: 1 }, to: { enabled: true, min_amount_cents: 1 } },
      stripe: { from: null, to: { secret_key_last4: '4242', webhook_secret_set: false } },
    });
    expect(settingsChanges(before, { ...before, review: { min_amount_cents: 1, enabled: false } })).toEqual({});
  });
});
