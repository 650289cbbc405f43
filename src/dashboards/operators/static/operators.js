import { api } from './api.js';
import { confirmAction, run } from './ui.js';
import { clear, facts, h, when } from './dom.js';
import { pagedList } from './list.js';
import { pendingInvitations } from './invitations.js';
import { roleName } from './sentences.js';

// The operator's people (operator_admin only: the admin API answers 403 to the other roles, shown as the page's error).
const ROLES = ['operator_admin', 'operator_reviewer', 'operator_viewer'];

function operatorCard(o, reload) {
  const role = h('select', { name: 'role', 'aria-label': `Role of ${o.email}` }, ROLES.map((r) => h('option', { value: r, selected: r === o.role }, roleName(r))));
  role.addEventListener('change', async () => {
    if (!(await run(() => api.patch(`/operators/${encodeURIComponent(o.id)}`, { role: role.value }), `${o.email} is now ${roleName(role.value)}.`))) role.value = o.role;
  });
  const remove = async () => {
    if (!(await confirmAction(`Remove ${o.email}? Their sessions end at once.`, 'Remove'))) return;
    if (await run(() => api.del(`/operators/${encodeURIComponent(o.id)}`), `${o.email} removed.`)) await reload();
  };
  // Recovery: for a person who lost their authenticator; they are mailed a link to enrol a new one.
  const recover = async () => {
    if (!(await confirmAction(`Reset the authenticator of ${o.email}? Their sessions end, and they are mailed a link to enrol a new one.`, 'Reset authenticator'))) return;
    await run(() => api.post(`/operators/${encodeURIComponent(o.id)}/authenticator-recovery`), `${o.email} was mailed a link to enrol a new authenticator.`);
  };
  return h('li', { class: 'card compact', 'data-operator': o.id },
    h('div', { class: 'row spread' }, h('strong', {}, o.email), role),
    facts([['Since', when(o.created_at)], ['Id', h('code', { class: 'id' }, o.id)]]),
    h('div', { class: 'inline-form' }, h('button', { class: 'secondary small', onclick: recover }, 'Reset authenticator'), h('button', { class: 'secondary small', onclick: remove }, 'Remove')),
  );
}

function inviteForm(onInvited) {
  const result = h('p', { class: 'muted', role: 'status' });
  const form = h('form', { class: 'card invite' },
    h('h3', {}, 'Invite an operator'),
    h('label', {}, 'Email', h('input', { name: 'email', type: 'email', required: true, maxlength: 254 })),
    h('label', {}, 'Role', h('select', { name: 'role' }, ROLES.map((r) => h('option', { value: r, selected: r === 'operator_reviewer' }, roleName(r))))),
    h('button', { type: 'submit', class: 'primary' }, 'Send invitation'),
    result,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const invited = await run(() => api.post('/operators/invitations', { email: data.get('email'), role: data.get('role') }), 'Invitation sent.');
    if (!invited) return;
    result.textContent = `Invited ${invited.email} as ${roleName(invited.role)}; the link (mailed, valid until ${when(invited.expires_at)}): ${invited.accept_url}`;
    form.reset();
    await onInvited();
  });
  return form;
}

export async function operatorsPage(root) {
  const list = pagedList('/operators?limit=50', (rows, reload) => h('ul', { class: 'plain list' }, rows.map((o) => operatorCard(o, reload))), h('p', { class: 'muted' }, 'No operators yet.'));
  const invitations = h('div', {});
  const showInvitations = async () => {
    const section = pendingInvitations('/operators/invitations', roleName);
    clear(invitations, section);
    await section.ready;
  };
  const onInvited = async () => {
    await Promise.all([list.reload(), showInvitations()]);
  };
  clear(root, h('h2', {}, 'Operators'), h('p', { class: 'muted' }, 'Who signs in to this dashboard, and what each may do. An invited person chooses a password and enrols an authenticator app.'), inviteForm(onInvited), list.el, invitations);
  await onInvited();
}
