import { api } from './api.js';
import { run } from './ui.js';
import { clear, h, money, when } from './dom.js';

const checkoutLink = (id) => h('a', { href: `/merchant/payments?checkout=${encodeURIComponent(id)}` }, id);

function stat(label, volume, currency) {
  return h('div', { class: 'card stat', 'data-stat': label.toLowerCase() },
    h('span', { class: 'muted' }, label),
    h('span', { class: 'value' }, money(volume.amount_cents, currency)),
    h('span', { class: 'muted' }, `${volume.count} payment${volume.count === 1 ? '' : 's'}`),
  );
}

function failedDelivery(d) {
  const last = d.last_attempt;
  return h('li', { class: 'card compact', 'data-failed-event': d.event_id },
    h('div', { class: 'row spread' }, h('strong', {}, d.type), h('span', { class: 'badge failed' }, 'failed')),
    h('p', {}, `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`, last ? ` · last ${when(last.at)}: ${last.http_status === null ? last.error : `HTTP ${last.http_status}`}` : ''),
    h('p', { class: 'muted' },
      h('a', { href: `/merchant/developers?event=${encodeURIComponent(d.event_id)}` }, 'See the event'),
      d.checkout_id ? [' · checkout ', checkoutLink(d.checkout_id)] : null,
    ),
  );
}

/** Today's (UTC) volume and the deliveries that failed: what to look at first. */
export async function homePage(root) {
  const home = await run(() => api.get('/home'));
  if (!home) return;
  clear(root,
    h('h2', {}, 'Today'),
    h('p', { class: 'muted' }, `Succeeded payments created on ${home.day} (UTC).`),
    h('div', { class: 'stats' }, stat('Deposits', home.deposits, home.currency), stat('Withdrawals', home.withdrawals, home.currency)),
    h('h2', {}, 'Failed webhook deliveries'),
    home.failed_deliveries.length
      ? h('ul', { class: 'plain list' }, home.failed_deliveries.map(failedDelivery))
      : h('p', { class: 'muted' }, 'No failed deliveries. Events your endpoint refused after every attempt appear here.'),
  );
}
