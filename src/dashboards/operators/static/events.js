import { api } from './api.js';
import { confirmAction, run } from './ui.js';
import { clear, h, when } from './dom.js';
import { pagedList } from './list.js';
import { attemptLine } from './records.js';

function eventCard(event, reload) {
  const resend = async () => {
    if (!(await confirmAction(`Send ${event.type} (${event.id}) to the merchant again, as a new delivery series of up to 5 attempts? Its delivery status stays as it is unless the new series is accepted.`, 'Resend'))) return;
    if (await run(() => api.post(`/events/${encodeURIComponent(event.id)}/resend`), 'Event queued for redelivery.')) setTimeout(reload, 1500);
  };
  return h('li', { class: 'card compact', 'data-event': event.id },
    h('div', { class: 'row spread' }, h('strong', {}, event.type), h('span', { class: `badge ${event.delivery_status}` }, event.delivery_status.replace(/_/g, ' '))),
    // The merchant by name; the ids stay beside it, to copy into a filter.
    h('p', { class: 'muted' }, when(event.created_at), ' · ', event.merchant_name || 'merchant', ' ', h('code', { class: 'id' }, event.merchant_id), ' · event ', h('code', { class: 'id' }, event.id)),
    event.checkout_id && h('p', {}, h('a', { href: `/dashboard/checkouts?id=${encodeURIComponent(event.checkout_id)}` }, 'Open its checkout'), ' ', h('code', { class: 'id muted' }, event.checkout_id)),
    event.attempts.length ? h('ol', { class: 'attempts' }, event.attempts.map(attemptLine)) : h('p', { class: 'muted' }, event.enabled ? 'No delivery attempts yet.' : 'Not enabled for this merchant: recorded, never sent.'),
    event.enabled && event.channel === 'outbox' && h('button', { class: 'secondary small', onclick: resend }, 'Resend'),
  );
}

/** Replay by filter: a dry-run count first, then the replay of exactly that filter after a confirmation. */
function replayForm(types) {
  const status = h('p', { class: 'muted', role: 'status' }, 'Count the matching events first; nothing is sent until you confirm.');
  const go = h('button', { type: 'button', class: 'danger', disabled: true }, 'Replay');
  const form = h('form', { class: 'card replay' },
    h('h3', {}, 'Replay by filter'),
    h('label', {}, 'Type', h('select', { name: 'type' }, h('option', { value: '' }, 'any type'), types.map((t) => h('option', { value: t }, t)))),
    h('label', {}, 'Merchant id', h('input', { name: 'merchant_id', placeholder: 'mer_…' })),
    h('label', {}, 'From', h('input', { name: 'from', type: 'datetime-local' })),
    h('label', {}, 'To', h('input', { name: 'to', type: 'datetime-local' })),
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'failed_only', checked: true }), 'Failed deliveries only'),
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'secondary' }, 'Count events'), go),
    status,
  );
  let filter = null;
  const read = () => {
    const data = new FormData(form);
    const f = { failed_only: data.get('failed_only') === 'on' };
    if (data.get('type')) f.type = data.get('type');
    if (String(data.get('merchant_id') || '').trim()) f.merchant_id = String(data.get('merchant_id')).trim();
    if (data.get('from')) f.from = new Date(String(data.get('from'))).toISOString();
    if (data.get('to')) f.to = new Date(String(data.get('to'))).toISOString();
    return f;
  };
  form.addEventListener('input', () => {
    go.disabled = true;
    filter = null;
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const candidate = read();
    const dry = await run(() => api.post('/events/replay', { ...candidate, dry_run: true }));
    if (!dry) return;
    filter = candidate;
    status.textContent = `${dry.count} event${dry.count === 1 ? '' : 's'} match this filter.`;
    go.textContent = `Replay ${dry.count} event${dry.count === 1 ? '' : 's'}`;
    go.disabled = dry.count === 0;
  });
  go.addEventListener('click', async () => {
    if (!filter || !(await confirmAction(`${go.textContent} to the merchants now?`, 'Replay'))) return;
    const done = await run(() => api.post('/events/replay', { ...filter, dry_run: false }), (r) => `${r.count} event${r.count === 1 ? '' : 's'} queued for redelivery.`);
    if (done) {
      status.textContent = `${done.count} queued for redelivery.`;
      go.disabled = true;
    }
  });
  return form;
}

export async function eventsPage(root, params) {
  const catalog = await run(() => api.get('/settings_catalog'));
  if (!catalog) return;
  const types = [...catalog.always_on_events, ...catalog.optional_event_groups.flatMap((g) => g.types)];
  const merchant = params.get('merchant_id') || '';
  const type = params.get('type') || '';
  const q = new URLSearchParams({ limit: '50' });
  if (merchant) q.set('merchant_id', merchant);
  if (type) q.set('type', type);
  const list = pagedList(`/events?${q}`, (rows, reload) => h('ul', { class: 'plain list' }, rows.map((e) => eventCard(e, reload))), h('p', { class: 'muted' }, 'No events.'));
  clear(root,
    h('h2', {}, 'Events'),
    h('div', { class: 'split' },
      h('div', {},
        h('form', { class: 'search row', method: 'get', action: '/dashboard/events' },
          h('input', { name: 'merchant_id', value: merchant, placeholder: 'Merchant id', 'aria-label': 'Merchant id' }),
          h('select', { name: 'type', 'aria-label': 'Type' }, h('option', { value: '' }, 'any type'), types.map((t) => h('option', { value: t, selected: t === type }, t))),
          h('button', { type: 'submit', class: 'primary' }, 'Filter'),
        ),
        list.el,
      ),
      replayForm(types),
    ),
  );
  await list.reload();
}
