// The open invitations of a team (a merchant's, or the operator's people): who was invited, by whom,
// until when, and a Revoke button. Shared by the merchant's Team page and the operator's Operators page.
import { api } from './api.js';
import { confirmAction, run } from './ui.js';
import { h, when } from './dom.js';
import { loadMoreList } from './list.js';
import { roleName as roleWords } from './sentences.js';

function invitationRow(invitation, revokePath, roleName, onRevoked) {
  const sender = invitation.invited_by === 'admin' ? 'the admin token' : invitation.invited_by_email ?? 'someone no longer here';
  const revoke = async () => {
    if (!(await confirmAction(`Revoke the invitation of ${invitation.email}? Its link stops working at once.`, 'Revoke'))) return;
    if (await run(() => api.del(`${revokePath}/${encodeURIComponent(invitation.id)}`), `Invitation of ${invitation.email} revoked.`)) onRevoked(row);
  };
  const row = h('li', { class: 'card compact', 'data-invitation': invitation.email },
    h('div', { class: 'row spread' }, h('strong', {}, invitation.email), h('span', { class: 'badge' }, roleName(invitation.role))),
    h('p', { class: 'muted' }, `Invited by ${sender} on ${when(invitation.created_at)} · the link works until ${when(invitation.expires_at)}`),
    h('button', { class: 'secondary small', onclick: revoke }, 'Revoke'),
  );
  return row;
}

/**
 * The "Pending invitations" section: `path` lists them (GET), `path/{id}` revokes one (DELETE).
 * Answers the section; its `ready` settles with the first page.
 */
export function pendingInvitations(path, roleName = roleWords) {
  const list = loadMoreList(path, (invitation) => invitationRow(invitation, path, roleName, (row) => row.remove()), 'No invitations waiting.');
  const section = h('section', { class: 'pending-invitations' }, h('h3', {}, 'Pending invitations'), list);
  section.ready = list.ready;
  return section;
}
