import { api } from './api.js';
import { may } from './roles.js';
import { confirmAction, run } from './ui.js';
import { clear, h, when } from './dom.js';
import { attemptLine } from './records.js';
import { loadMoreList } from './list.js';

/** Credentials answered once: shown with a clear note, never fetched again. */
const shownOnce = (title, pairs) =>
  h('div', { class: 'card secrets', role: 'status' },
    h('strong', {}, title),
    h('p', {}, 'Copy these now: they are shown once and cannot be read again.'),
    pairs.map(([label, value]) => h('p', {}, `${label}: `, h('code', {}, value))));

function apiKeys(canChange) {
  const box = h('section', { class: 'card', id: 'api-keys' });
  const render = async (issued) => {
    const revoke = (key) => async () => {
      if (!(await confirmAction(`Revoke the API key ${key.key_prefix}…? Calls with it are refused from then on.`, 'Revoke'))) return;
      if (await run(() => api.del(`/developers/api_keys/${encodeURIComponent(key.key_prefix)}`), 'API key revoked.')) await render();
    };
    const issue = async () => {
      const created = await run(() => api.post('/developers/api_keys'), 'API key issued.');
      if (created) await render(created);
    };
    const keys = loadMoreList('/developers/api_keys', (key) => h('li', { class: 'row spread', 'data-key': key.key_prefix },
      h('span', {}, h('code', {}, `${key.key_prefix}…`), ` issued ${when(key.created_at)}`, key.revoked_at ? ` · revoked ${when(key.revoked_at)}` : ''),
      canChange && !key.revoked_at && h('button', { class: 'danger small', onclick: revoke(key) }, 'Revoke')), 'No API keys yet.', { className: 'plain' });
    clear(box,
      h('h3', {}, 'API keys'),
      issued && shownOnce('New API key', [['API key', issued.api_key], ['Client secret', issued.client_secret]]),
      // Newest first, a page at a time: revoked keys stay listed, so the list only grows.
      keys,
      canChange && h('button', { class: 'primary', onclick: issue }, 'Issue a new API key'),
    );
    await keys.ready;
  };
  box.ready = render();
  return box;
}

function webhook(canChange) {
  const box = h('section', { class: 'card', id: 'webhook' });
  const render = async (rolled) => {
    const settings = await run(() => api.get('/developers/webhook'));
    if (!settings) return;
    const url = h('input', { name: 'webhook_url', type: 'url', value: settings.webhook_url || '', placeholder: 'https://…', disabled: !canChange });
    const form = h('form', { class: 'inline-form' }, h('label', {}, 'Webhook URL', url), canChange && h('button', { class: 'primary', type: 'submit' }, 'Save URL'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (await run(() => api.put('/developers/webhook', { webhook_url: url.value.trim() || null }), 'Webhook URL saved.')) await render();
    });
    const hours = h('input', { name: 'overlap_hours', type: 'number', min: '0', max: '168', step: '1', value: '24' });
    const roll = async () => {
      const overlap = Number(hours.value) * 3600;
      if (!(await confirmAction(`Roll the signing secret? The current one keeps signing beside the new one for ${hours.value} hours, so you can deploy the new one.`, 'Roll'))) return;
      const answer = await run(() => api.post('/developers/webhook/signing_secret/roll', { overlap_seconds: overlap }), 'Signing secret rolled.');
      if (answer) await render(answer);
    };
    clear(box,
      h('h3', {}, 'Webhook'),
      form,
      h('h4', {}, 'Signing secret'),
      rolled && shownOnce('New signing secret', [['Signing secret', rolled.webhook_signing_secret]]),
      h('p', { id: 'previous-secret' }, settings.previous_webhook_secret_expires_at
        ? `The previous secret keeps signing beside the new one until ${when(settings.previous_webhook_secret_expires_at)}.`
        : 'One signing secret signs every delivery.'),
      canChange && h('div', { class: 'inline-form' }, h('label', {}, 'Overlap (hours)', hours), h('button', { class: 'secondary', onclick: roll }, 'Roll signing secret')),
    );
  };
  box.ready = render();
  return box;
}

function enabledEvents(canChange) {
  const box = h('section', { class: 'card', id: 'enabled-events' });
  const render = async () => {
    const catalog = await run(() => api.get('/developers/enabled_events'));
    if (!catalog) return;
    const form = h('form', {},
      h('h3', {}, 'Events'),
      h('p', { class: 'muted' }, 'Always sent: ', catalog.always_on_events.join(', ')),
      catalog.groups.map((group) => h('fieldset', {}, h('legend', {}, group.name), h('div', { class: 'checks' }, group.events.map((event) => {
        const noteId = `note-${event.type.replace(/\W/g, '-')}`;
        return [
          h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'enabled_events', value: event.type, checked: event.enabled, disabled: !canChange, 'aria-describedby': event.note ? noteId : null }), event.type),
          event.note && h('p', { class: 'check-note muted', id: noteId }, h('small', {}, event.note)),
        ];
      })))),
      canChange && h('button', { class: 'primary', type: 'submit' }, 'Save events'),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const chosen = new FormData(form).getAll('enabled_events');
      if (await run(() => api.put('/developers/enabled_events', { enabled_events: chosen }), 'Events saved.')) await render();
    });
    clear(box, form);
  };
  box.ready = render();
  return box;
}

function eventCard(event, canChange) {
  const resend = async () => {
    if (!(await confirmAction(`Send ${event.type} again to your webhook URL, as a new delivery series?`, 'Resend'))) return;
    await run(() => api.post(`/developers/events/${encodeURIComponent(event.id)}/resend`), 'Event queued for redelivery: reload to see its attempts.');
  };
  return h('li', { class: 'card compact', 'data-event': event.id },
    h('div', { class: 'row spread' }, h('strong', {}, event.type), h('span', { class: `badge ${event.delivery_status}` }, event.delivery_status.replace(/_/g, ' '))),
    h('p', { class: 'muted' }, `${when(event.created_at)} · event `, h('code', { class: 'id' }, event.id)),
    event.checkout_id && h('p', {}, h('a', { href: `/merchant/payments?checkout=${encodeURIComponent(event.checkout_id)}` }, 'Open its payment'), ' ', h('code', { class: 'id muted' }, event.checkout_id)),
    event.attempts.length ? h('ol', { class: 'attempts' }, event.attempts.map(attemptLine)) : h('p', { class: 'muted' }, event.enabled ? 'No delivery attempts yet.' : 'Not enabled: recorded, never sent.'),
    canChange && event.enabled && event.channel === 'outbox' && h('button', { class: 'secondary small', onclick: resend }, 'Resend'),
  );
}

/** Keys, webhook, signing secret, enabled events and the event log; ?event=… shows one event. */
export async function developersPage(root, params, session) {
  const canChange = may(session.user.role, 'developers');
  const one = params.get('event');
  if (one) {
    const event = await run(() => api.get(`/developers/events/${encodeURIComponent(one)}`));
    if (event) clear(root, h('p', {}, h('a', { href: '/merchant/developers' }, '← Developers')), h('h2', {}, 'Event'), h('ul', { class: 'plain list' }, eventCard(event, canChange)));
    return;
  }
  const parts = [apiKeys(canChange), webhook(canChange), enabledEvents(canChange)];
  const log = loadMoreList('/developers/events', (e) => eventCard(e, canChange), 'No events yet.');
  clear(root,
    h('h2', {}, 'Developers'),
    h('div', { class: 'split' }, h('div', {}, parts), h('section', { id: 'event-log' }, h('h3', {}, 'Event log'), log)),
  );
  await Promise.all([...parts.map((p) => p.ready), log.ready]);
}
