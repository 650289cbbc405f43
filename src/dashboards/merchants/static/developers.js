import { api } from './api.js';
import { may } from './roles.js';
import { confirmAction, run, toast } from './ui.js';
import { clear, h, when } from './dom.js';
import { attemptLine } from './records.js';
import { loadMoreList } from './list.js';
import { codeField, proofOf } from './security.js';

/** Credentials answered once: shown with a note saying so (or where to see them again). */
const shownOnce = (title, pairs, note = 'Copy these now: they are shown once and cannot be read again.') =>
  h('div', { class: 'card secrets', role: 'status' },
    h('strong', {}, title),
    h('p', {}, note),
    pairs.map(([label, value]) => h('p', {}, `${label}: `, h('code', {}, value))));

// Wide screens show every section open; a phone shows their summaries, one opened at a time, so
// the page stays a few screens tall. Following the width stops once the person opens or closes one.
const wide = window.matchMedia('(min-width: 900px)');

/** A section that collapses: its summary names it with one line of what is inside; `body` holds the rest. */
function section(id, title, note) {
  const body = h('div', { class: 'section-body' });
  const summary = h('summary', {}, h('h3', {}, title), h('span', { class: 'muted' }, note));
  const box = h('details', { class: 'card section', id, open: wide.matches }, summary, body);
  let chosen = false;
  summary.addEventListener('click', () => (chosen = true));
  const follow = () => {
    if (!box.isConnected) wide.removeEventListener('change', follow);
    else if (!chosen) box.open = wide.matches;
  };
  wide.addEventListener('change', follow);
  return { box, body };
}

function apiKeys(canChange) {
  const { box, body } = section('api-keys', 'API keys', 'Keys your server calls the API with.');
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
    clear(body,
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

/** The signing secret on screen after a fresh authenticator code: copyable, and hidden again on a press. */
function revealedSecret(place, answer) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(answer.webhook_secret);
      toast('Signing secret copied.');
    } catch {
      toast('Copying was refused by the browser: select the secret and copy it.', 'error');
    }
  };
  const hide = () => clear(place);
  clear(place, h('div', { class: 'card secrets', id: 'revealed-secret' },
    h('p', {}, 'Signing secret: ', h('code', { id: 'signing-secret' }, answer.webhook_secret)),
    answer.previous_webhook_secret_expires_at && h('p', {}, `The secret before it also signs until ${when(answer.previous_webhook_secret_expires_at)}.`),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'secondary small', onclick: copy }, 'Copy'),
      h('button', { type: 'button', class: 'secondary small', onclick: hide }, 'Hide'))));
}

/** Reveal: a code of the person's authenticator app (or a recovery code), checked by the server, shows the secret. */
function revealForm(session) {
  if (!session.user.totp_enabled) {
    return h('p', { class: 'note' }, 'Revealing the secret takes a code from an authenticator app: enrol one on the ', h('a', { href: '/merchant/security' }, 'Security page'), '.');
  }
  const place = h('div', { 'aria-live': 'polite' });
  const { input, label } = codeField('Code from your authenticator app, or a recovery code', 'reveal_code');
  const form = h('form', { class: 'inline-form' }, label, h('button', { class: 'secondary', type: 'submit' }, 'Reveal'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const answer = await run(() => api.post('/developers/webhook/signing_secret/reveal', proofOf(input.value)));
    if (!answer) return;
    // The code is spent: the field empties for the next reveal.
    input.value = '';
    revealedSecret(place, answer);
  });
  return [form, place];
}

function webhook(canChange, session) {
  const { box, body } = section('webhook', 'Webhook', 'Where events are sent, and the secret that signs them.');
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
    clear(body,
      form,
      h('h4', {}, 'Signing secret'),
      h('p', { id: 'secret-source' }, 'Every delivery is signed with this secret (it starts wss_), so your endpoint can check that a delivery came from us. Your account got one when it was opened; rolling makes a new one. ',
        canChange ? 'Reveal shows the current one after a code from your authenticator app.' : 'Owners and developers can reveal it with a code from their authenticator app.'),
      rolled && shownOnce('New signing secret', [['Signing secret', rolled.webhook_signing_secret]], 'Deploy it to your endpoint now; Reveal shows it again later.'),
      canChange && revealForm(session),
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
  const { box, body } = section('enabled-events', 'Events', 'Which events are sent to your webhook.');
  const render = async () => {
    const catalog = await run(() => api.get('/developers/enabled_events'));
    if (!catalog) return;
    const form = h('form', {},
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
    clear(body, form);
  };
  box.ready = render();
  return box;
}

/** One delivery attempt: its outcome, and what the receiver answered (the API keeps the start of the body). */
function deliveryAttempt(a) {
  const line = attemptLine(a);
  const answer = a.response_excerpt === null || a.response_excerpt === undefined || a.response_excerpt === ''
    ? h('p', { class: 'muted' }, a.http_status === null ? 'No answer.' : 'Answered with an empty body.')
    : h('p', {}, 'Answer: ', h('code', { class: 'answer' }, a.response_excerpt));
  line.append(answer);
  return line;
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
    // The envelope exactly as each attempt sent it, ids and all: what a developer matches against their endpoint's logs.
    h('details', { class: 'payload' }, h('summary', {}, event.attempts.length ? 'Payload sent' : 'Payload'), h('pre', { class: 'json', tabindex: '0', 'aria-label': `Payload of ${event.type}` }, h('code', { class: 'id' }, JSON.stringify(event.payload, null, 2)))),
    event.attempts.length ? h('ol', { class: 'attempts' }, event.attempts.map(deliveryAttempt)) : h('p', { class: 'muted' }, event.enabled ? 'No delivery attempts yet.' : 'Not enabled: recorded, never sent.'),
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
  const parts = [apiKeys(canChange), webhook(canChange, session), enabledEvents(canChange)];
  const log = loadMoreList('/developers/events', (e) => eventCard(e, canChange), 'No events yet.');
  const events = section('event-log', 'Event log', 'Every event, newest first, with what was sent and what your endpoint answered.');
  events.body.append(log);
  clear(root,
    h('h2', {}, 'Developers'),
    h('div', { class: 'split' }, h('div', {}, parts), h('div', {}, events.box)),
  );
  await Promise.all([...parts.map((p) => p.ready), log.ready]);
}
