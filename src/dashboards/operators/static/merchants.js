import { api, query } from './api.js';
import { confirmAction, run, toast } from './ui.js';
import { centsOf, clear, facts, h, when } from './dom.js';
import { pagedList } from './list.js';

const checkbox = (name, value, checked, label = value, describedBy = null) =>
  h('label', { class: 'check' }, h('input', { type: 'checkbox', name, value, checked, 'aria-describedby': describedBy }), label);

/** What an operator should know before turning an event off, shown beside its checkbox. */
const EVENT_NOTES = {
  'checkout.failed':
    'A merchant that takes withdrawals should enable this: it is the only notice of a payout reversed after it succeeded (no checkout.release_hold follows a success).',
};

function eventCheckbox(type, checked) {
  const note = EVENT_NOTES[type];
  if (!note) return checkbox('enabled_events', type, checked);
  const id = `event-note-${type.replace(/[^a-z0-9]+/gi, '-')}`;
  return h('div', { class: 'check-note' }, checkbox('enabled_events', type, checked, type, id), h('small', { id, class: 'muted' }, note));
}

/** Shows credentials exactly once, with a warning; they are not stored anywhere readable. */
function secretsBox(credentials) {
  return h('div', { class: 'card secrets', role: 'alert' },
    h('h3', {}, 'Copy these now: they are shown once'),
    facts([
      ['API key', h('code', {}, credentials.api_key)],
      ['Client secret', h('code', {}, credentials.client_secret)],
      credentials.webhook_signing_secret && ['Webhook signing secret', h('code', {}, credentials.webhook_signing_secret)],
    ]),
  );
}

function settingsForm(merchant, catalog, onSaved) {
  const s = merchant.settings;
  const form = h('form', { class: 'card settings' },
    h('h3', {}, 'Settings'),
    h('label', {}, 'Webhook URL', h('input', { name: 'webhook_url', type: 'url', value: s.webhook_url || '', placeholder: 'https://example.com/webhooks' })),
    h('fieldset', {}, h('legend', {}, 'Events'),
      h('p', { class: 'muted' }, 'Always sent: ', catalog.always_on_events.join(', ')),
      catalog.optional_event_groups.map((g) => h('div', { class: 'group' }, h('strong', {}, g.name), h('div', { class: 'checks' }, g.types.map((t) => eventCheckbox(t, s.enabled_events.includes(t)))))),
    ),
    h('fieldset', {}, h('legend', {}, 'Checkout flows'), h('div', { class: 'checks' }, catalog.checkout_flows.map((f) => checkbox('checkout_flows', f, s.checkout_flows.includes(f))))),
    catalog.checkout_types.map((type) =>
      h('fieldset', {}, h('legend', {}, `Payment methods: ${type}`), h('div', { class: 'checks' }, catalog.payment_methods.map((m) => checkbox(`payment_methods.${type}`, m, s.payment_methods[type].includes(m))))),
    ),
    h('fieldset', {}, h('legend', {}, 'Review'),
      checkbox('review_enabled', 'on', s.review.enabled, 'Pause withdrawals for review'),
      h('label', {}, 'From amount ($)', h('input', { name: 'review_min', type: 'number', min: '0.01', step: '0.01', inputmode: 'decimal', value: (s.review.min_amount_cents / 100).toFixed(2) })),
    ),
    // The API keeps seconds; a person thinks of an expiry in minutes (a value that is not whole minutes shows its fraction).
    h('label', {}, 'Checkout expiry (minutes)', h('input', { name: 'checkout_expiry_minutes', type: 'number', min: 1 / 60, max: 1440, step: 'any', value: String(Math.round((s.checkout_expiry_seconds / 60) * 1000) / 1000) })),
    h('button', { type: 'submit', class: 'primary' }, 'Save settings'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const patch = {
      webhook_url: String(data.get('webhook_url') || '').trim() || null,
      enabled_events: data.getAll('enabled_events'),
      checkout_flows: data.getAll('checkout_flows'),
      payment_methods: Object.fromEntries(catalog.checkout_types.map((t) => [t, data.getAll(`payment_methods.${t}`)])),
      review: { enabled: data.get('review_enabled') === 'on', min_amount_cents: Number(centsOf(data.get('review_min'))) },
      checkout_expiry_seconds: Math.round(Number(data.get('checkout_expiry_minutes')) * 60),
    };
    const saved = await run(() => api.patch(`/merchants/${encodeURIComponent(merchant.id)}/settings`, patch), 'Settings saved.');
    if (saved) onSaved();
  });
  return form;
}

async function keysCard(merchantId) {
  const card = h('section', { class: 'card' });
  const render = async (issued) => {
    const issue = async () => {
      const created = await run(() => api.post(`/merchants/${encodeURIComponent(merchantId)}/api_keys`), 'New API key issued.');
      if (created) await render(created);
    };
    const revoke = (prefix) => async () => {
      if (!(await confirmAction(`Revoke the API key ${prefix}…? Calls made with it will fail at once.`, 'Revoke'))) return;
      if (await run(() => api.del(`/merchants/${encodeURIComponent(merchantId)}/api_keys/${encodeURIComponent(prefix)}`), 'API key revoked.')) await render();
    };
    // Newest first, a page at a time: revoked keys stay listed, so the list only grows.
    const keys = pagedList(`/merchants/${encodeURIComponent(merchantId)}/api_keys?limit=25`, (results) => h('ul', { class: 'plain' }, results.map((k) =>
      h('li', { class: 'row spread' },
        h('span', {}, h('code', {}, `${k.key_prefix}…`), ` issued ${when(k.created_at)}`, k.revoked_at ? ` · revoked ${when(k.revoked_at)}` : ''),
        !k.revoked_at && h('button', { class: 'danger small', onclick: revoke(k.key_prefix) }, 'Revoke'),
      ))), h('p', { class: 'muted' }, 'No API keys.'));
    clear(card,
      h('h3', {}, 'API keys'),
      issued && secretsBox(issued),
      keys.el,
      h('button', { class: 'secondary', onclick: issue }, 'Issue a new API key'),
    );
    await keys.reload();
  };
  await render();
  return card;
}

/** Invites a person to the merchant (POST /admin/v1/merchants/{id}/invitations): the link is mailed, and shown here once. */
function inviteForm(merchantId) {
  const result = h('p', { class: 'muted', role: 'status' });
  const form = h('form', { class: 'card invite' },
    h('h3', {}, 'Invite a person'),
    h('label', {}, 'Email', h('input', { name: 'email', type: 'email', required: true, maxlength: 254 })),
    h('label', {}, 'Role', h('select', { name: 'role' }, ['owner', 'developer', 'reviewer', 'viewer'].map((role) => h('option', { value: role }, role)))),
    h('button', { type: 'submit', class: 'primary' }, 'Send invitation'),
    result,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const invited = await run(() => api.post(`/merchants/${encodeURIComponent(merchantId)}/invitations`, { email: data.get('email'), role: data.get('role') }), 'Invitation sent.');
    if (invited) {
      result.textContent = `Invited ${invited.email} as ${invited.role}; the link (mailed, valid until ${when(invited.expires_at)}): ${invited.accept_url}`;
      form.reset();
    }
  });
  return form;
}

function createForm(onCreated) {
  const form = h('form', { class: 'card' },
    h('h3', {}, 'Onboard a merchant'),
    h('label', {}, 'Name', h('input', { name: 'name', required: true, maxlength: 200 })),
    h('label', {}, 'Environment', h('select', { name: 'environment' }, h('option', { value: 'sandbox' }, 'sandbox'), h('option', { value: 'production' }, 'production'))),
    h('button', { type: 'submit', class: 'primary' }, 'Create merchant'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const created = await run(() => api.post('/merchants', { name: data.get('name'), environment: data.get('environment') }), 'Merchant created.');
    if (created) onCreated(created);
  });
  return form;
}

export async function merchantsPage(root, params) {
  const catalog = await run(() => api.get('/settings_catalog'));
  if (!catalog) return;
  const selectedId = params.get('id');
  const q = params.get('q') || '';
  const list = pagedList(`/merchants${query({ q, limit: 50 })}`, (rows) =>
    h('ul', { class: 'plain merchants' }, rows.map((m) =>
      h('li', {}, h('a', { href: `/dashboard/merchants${query({ q, id: m.id })}`, 'aria-current': m.id === selectedId ? 'page' : null }, m.name), h('small', { class: 'muted' }, ` ${m.environment}`)))),
    h('p', { class: 'muted' }, q ? `No merchant's name or id contains “${q}”.` : 'No merchants yet.'));
  const search = h('form', { class: 'search row', method: 'get', action: '/dashboard/merchants' },
    h('input', { name: 'q', value: q, type: 'search', placeholder: 'Name or id', 'aria-label': 'Search merchants' }),
    h('button', { class: 'primary', type: 'submit' }, 'Search'));
  const detail = h('div', { class: 'detail' });
  const show = async (id, credentials) => {
    const merchant = await run(() => api.get(`/merchants/${encodeURIComponent(id)}`));
    if (!merchant) return;
    clear(detail,
      h('h2', {}, merchant.name),
      credentials && secretsBox(credentials),
      facts([['Id', h('code', { class: 'id' }, merchant.id)], ['Environment', merchant.environment], ['Created', when(merchant.created_at)]]),
      settingsForm(merchant, catalog, () => show(id)),
      await keysCard(id),
      inviteForm(id),
    );
  };
  clear(root,
    h('h2', {}, 'Merchants'),
    h('div', { class: 'split' },
      h('div', {},
        search,
        list.el,
        createForm((created) => {
          history.replaceState(null, '', `/dashboard/merchants?id=${encodeURIComponent(created.id)}`);
          toast('Merchant created. Copy its secrets now.');
          void show(created.id, created);
        }),
      ),
      detail,
    ),
  );
  await list.reload();
  if (selectedId) await show(selectedId);
  else clear(detail, h('p', { class: 'muted' }, 'Choose a merchant to see its settings and API keys.'));
}
