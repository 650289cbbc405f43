import { api } from './api.js';
import { confirmAction, run } from './ui.js';
import { clear, h, when } from './dom.js';
import { loadMoreList } from './list.js';
import { pendingInvitations } from './invitations.js';
import { roleName } from './sentences.js';

const ROLES = ['owner', 'developer', 'reviewer', 'viewer'];
const roleSelect = (value, label) => h('select', { name: 'role', 'aria-label': label }, ROLES.map((r) => h('option', { value: r, selected: r === value }, roleName(r))));

function personRow(person, session, reload) {
  const select = roleSelect(person.role, `Role of ${person.email}`);
  const change = async () => {
    if (select.value === person.role) return;
    if (await run(() => api.patch(`/team/${encodeURIComponent(person.id)}`, { role: select.value }), `${person.email} is now ${roleName(select.value)}.`)) await reload();
  };
  const remove = async () => {
    if (!(await confirmAction(`Remove ${person.email} (${roleName(person.role)}) from the team? Their sessions end at once.`, 'Remove'))) return;
    if (await run(() => api.del(`/team/${encodeURIComponent(person.id)}`), `${person.email} removed.`)) await reload();
  };
  // Recovery: for a person who lost their authenticator; they are mailed a link to enrol a new one.
  const recover = async () => {
    if (!(await confirmAction(`Reset the authenticator of ${person.email}? Their sessions end, and they are mailed a link to enrol a new one.`, 'Reset authenticator'))) return;
    await run(() => api.post(`/team/${encodeURIComponent(person.id)}/authenticator-recovery`), `${person.email} was mailed a link to enrol a new authenticator.`);
  };
  const self = person.id === session.user.id;
  const resetButton = person.totp_enabled && !self ? h('button', { class: 'secondary small', onclick: recover }, 'Reset authenticator') : null;
  return h('li', { class: 'card compact', 'data-person': person.email },
    h('div', { class: 'row spread' }, h('strong', {}, person.email, self ? ' (you)' : ''), h('span', { class: 'badge' }, roleName(person.role))),
    h('p', { class: 'muted' }, `Joined ${when(person.created_at)} · authenticator ${person.totp_enabled ? 'on' : 'off'}`),
    h('div', { class: 'inline-form' }, select, h('button', { class: 'secondary small', onclick: change }, 'Change role'), resetButton, h('button', { class: 'danger small', onclick: remove }, 'Remove')),
  );
}

function inviteForm(reload) {
  const email = h('input', { name: 'email', type: 'email', required: true, maxlength: '254' });
  const form = h('form', { class: 'card inline-form', id: 'invite' }, h('h3', {}, 'Invite someone'), h('label', {}, 'Email', email), h('label', {}, 'Role', roleSelect('viewer', 'Role')), h('button', { class: 'primary', type: 'submit' }, 'Send invitation'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const role = new FormData(form).get('role');
    const sent = await run(() => api.post('/team/invitations', { email: email.value, role }), (r) => `Invitation mailed to ${r.email}; the link works for 7 days.`);
    if (sent) {
      email.value = '';
      await reload();
    }
  });
  return form;
}

/** The team (owners): each person's role, changed or removed; invitations by email and role. */
export async function teamPage(root, _params, session) {
  const box = h('div', {});
  const reload = async () => {
    const team = loadMoreList('/team', (p) => personRow(p, session, reload), 'No one in the team yet.');
    const invitations = pendingInvitations('/team/invitations', roleName);
    clear(box, team, invitations);
    await Promise.all([team.ready, invitations.ready]);
  };
  clear(root, h('h2', {}, 'Team'), inviteForm(reload), box);
  await reload();
}
