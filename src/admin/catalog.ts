import { ALWAYS_ON_EVENT_TYPES, OPTIONAL_EVENT_TYPES } from '../domain/event-types';
import { CARD_PROCESSORS, CHECKOUT_FLOWS, CHECKOUT_TYPES, CUSTOMER_FIELD_MODES, PAYMENT_METHODS } from '../domain/settings';

/** The contract catalog's groups, as the dashboard shows the enabled-events choices, and our subscription events apart. */
function groupOf(type: string): string {
  if (type.startsWith('subscription.')) return 'Subscriptions';
  if (type.startsWith('checkout.review.')) return 'Reviews';
  if (type.startsWith('customer.')) return 'Customers';
  if (type === 'checkout.expired' || type === 'checkout.terminally_failed') return 'Checkout outcomes';
  return 'Charge events';
}

/** What the dashboard's settings form offers, from the same constants that validate settings. */
export function settingsCatalog() {
  const groups = new Map<string, string[]>();
  for (const type of OPTIONAL_EVENT_TYPES) groups.set(groupOf(type), [...(groups.get(groupOf(type)) ?? []), type]);
  return {
    always_on_events: ALWAYS_ON_EVENT_TYPES,
    optional_event_groups: [...groups].map(([name, types]) => ({ name, types })),
    checkout_flows: CHECKOUT_FLOWS,
    checkout_types: CHECKOUT_TYPES,
    payment_methods: PAYMENT_METHODS,
    card_processors: CARD_PROCESSORS,
    customer_fields: CUSTOMER_FIELD_MODES,
  };
}
