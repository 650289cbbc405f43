import { createSandboxProcessor } from '../../src/processors';
import { runConnectorKit, type KitScenario } from './kit/connector-kit';

// The sandbox's scenarios are its test cards; it is never unreachable and has no keys.
const CARDS: Partial<Record<KitScenario, string>> = {
  approve: '4242424242424242',
  decline: '4000000000000002',
  insufficient_funds: '4000000000009995',
  threeds: '4000000000003220',
  refund_declined: '4000000000005126',
};

const processor = createSandboxProcessor('sandbox_alpha');
const expYear = new Date().getUTCFullYear() + 2;

runConnectorKit({
  name: 'sandbox_alpha',
  environment: 'sandbox',
  scenario(scenario) {
    const number = CARDS[scenario];
    return number ? { processor, card: { number, exp_month: 12, exp_year: expYear, cvc: '123' } } : undefined;
  },
});
