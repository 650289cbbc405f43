import { settingsCatalog } from '../../src/admin/catalog';
import { OPTIONAL_EVENT_TYPES, SUBSCRIPTION_EVENT_TYPES } from '../../src/domain/event-types';

describe('settings catalog', () => {
  // Audit regression: subscription.* events fell through to "Charge events" on the dashboard's settings form.
  it('groups every optional event once, subscription events apart from charge events', () => {
    const groups = Object.fromEntries(settingsCatalog().optional_event_groups.map((g) => [g.name, g.types]));
    expect(groups['Subscriptions']).toEqual([...SUBSCRIPTION_EVENT_TYPES]);
    expect(groups['Charge events']).toEqual(['checkout.pending', 'checkout.failed', 'checkout.voided', 'checkout.refunded', 'checkout.cancelled']);
    expect(Object.values(groups).flat().sort()).toEqual([...OPTIONAL_EVENT_TYPES].sort());
  });
});
