import { startService, type Service } from '../../support/harness';
import { onboard, request } from '../../support/http';
import { adminInvite, asMember, member, PASSWORD, tokenOf, uniqueEmail, walkPages } from '../../support/merchant-accounts';
import { asOperator, inviteOperator, operator } from '../../support/operators';

/**
 * Invitations are listed and revocable (owners for their merchant, operator admins for the
 * operator's people and any merchant's), a new invitation of the same email replaces the old one,
 * and an invitation dies when its inviter may no longer invite.
 */
let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
});
afterAll(async () => {
  await service.stop();
});

const accept = (acceptUrl: string) => request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: tokenOf(acceptUrl), password: PASSWORD } });
const invalidInvitation = { status: 422, body: expect.objectContaining({ error: 'Invitation not valid.' }) };
const asAdmin = (method: string, path: string, body?: unknown) => request(service.baseUrl, method, path, { token: service.adminToken, body });
const auditActions = async (merchantId: string | null) => (await service.deps.db('audit_log').where({ merchant_id: merchantId }).orderBy('created_at')).map((row) => ({ action: row.action, target: row.target, details: row.details }));

describe("a merchant's invitations", () => {
  it('lists the open ones with who sent them, and an owner revokes one: its link stops working at once', async () => {
    const merchant = await onboard(service);
    const owner = await member(service, merchant.id, 'owner');
    const email = uniqueEmail('dev');
    const sent = await asMember(service, owner, 'POST', '/team/invitations', { body: { email, role: 'developer' } });
    expect(sent.status).toBe(201);
    await adminInvite(service, merchant.id, uniqueEmail('viewer'), 'viewer');

    const listed = await asMember(service, owner, 'GET', '/team/invitations');
    expect(listed.status).toBe(200);
    expect(listed.body.results).toHaveLength(2);
    expect(listed.body.results[1]).toEqual({
      id: sent.body.id, email: email.toLowerCase(), role: 'developer', expires_at: sent.body.expires_at, created_at: expect.any(String), invited_by: owner.user.id, invited_by_email: owner.email.toLowerCase(),
    });
    expect(listed.body.results[0]).toMatchObject({ invited_by: 'admin', invited_by_email: null });
    expect(JSON.stringify(listed.body)).not.toContain('token');
    expect(await walkPages(service, owner, '/team/invitations', 1, 'id')).toEqual(listed.body.results.map((r: { id: string }) => r.id));

    const revoked = await asMember(service, owner, 'DELETE', `/team/invitations/${sent.body.id}`);
    expect([revoked.status, revoked.body]).toEqual([200, { id: sent.body.id, revoked: true }]);
    expect(await accept(sent.body.accept_url)).toMatchObject(invalidInvitation);
    expect((await asMember(service, owner, 'GET', '/team/invitations')).body.results.map((r: { id: string }) => r.id)).not.toContain(sent.body.id);
    expect((await asMember(service, owner, 'DELETE', `/team/invitations/${sent.body.id}`)).status).toBe(404);
    expect(await auditActions(merchant.id)).toContainEqual({ action: 'invitation.revoked', target: sent.body.id, details: { email: email.toLowerCase(), role: 'developer' } });
  });

  it("keeps another merchant's invitations out of sight, and only owners list or revoke", async () => {
    const merchant = await onboard(service);
    const other = await onboard(service);
    const owner = await member(service, merchant.id, 'owner');
    const theirs = await adminInvite(service, other.id, uniqueEmail(), 'viewer');
    expect((await asMember(service, owner, 'DELETE', `/team/invitations/${theirs.body.id}`)).status).toBe(404);
    expect((await asMember(service, owner, 'GET', '/team/invitations')).body.results).toEqual([]);
    expect((await accept(theirs.body.accept_url)).status).toBe(201);

    const developer = await member(service, merchant.id, 'developer');
    const mine = await adminInvite(service, merchant.id, uniqueEmail(), 'viewer');
    expect((await asMember(service, developer, 'GET', '/team/invitations')).status).toBe(403);
    expect((await asMember(service, developer, 'DELETE', `/team/invitations/${mine.body.id}`)).status).toBe(403);
    expect((await asMember(service, owner, 'DELETE', `/team/invitations/${mine.body.id}`, { csrf: false })).status).toBe(401);
  });

  it('replaces an open invitation of the same email: one live link, with the newest role', async () => {
    const merchant = await onboard(service);
    const email = uniqueEmail('twice');
    const first = await adminInvite(service, merchant.id, email, 'owner');
    const second = await adminInvite(service, merchant.id, email.toUpperCase(), 'viewer');
    expect(second.status).toBe(201);
    expect(await accept(first.body.accept_url)).toMatchObject(invalidInvitation);
    const accepted = await accept(second.body.accept_url);
    expect([accepted.status, accepted.body.user.role]).toEqual([201, 'viewer']);
    expect(await auditActions(merchant.id)).toContainEqual({ action: 'invitation.created', target: second.body.id, details: { email: email.toLowerCase(), role: 'viewer', replaced: [first.body.id] } });
  });

  it("dies with its inviter's right to invite: removed, or demoted to a role that may not", async () => {
    const merchant = await onboard(service);
    const keeper = await member(service, merchant.id, 'owner');
    const removedOwner = await member(service, merchant.id, 'owner');
    const demotedOwner = await member(service, merchant.id, 'owner');
    const byRemoved = await asMember(service, removedOwner, 'POST', '/team/invitations', { body: { email: uniqueEmail(), role: 'owner' } });
    const byDemoted = await asMember(service, demotedOwner, 'POST', '/team/invitations', { body: { email: uniqueEmail(), role: 'owner' } });
    const byKeeper = await asMember(service, keeper, 'POST', '/team/invitations', { body: { email: uniqueEmail(), role: 'developer' } });

    expect((await asMember(service, keeper, 'DELETE', `/team/${removedOwner.user.id}`)).status).toBe(200);
    expect((await asMember(service, keeper, 'PATCH', `/team/${demotedOwner.user.id}`, { body: { role: 'viewer' } })).status).toBe(200);

    expect((await asMember(service, keeper, 'GET', '/team/invitations')).body.results.map((r: { id: string }) => r.id)).toEqual([byKeeper.body.id]);
    expect(await accept(byRemoved.body.accept_url)).toMatchObject(invalidInvitation);
    expect(await accept(byDemoted.body.accept_url)).toMatchObject(invalidInvitation);
    expect((await accept(byKeeper.body.accept_url)).status).toBe(201);
    const entries = await auditActions(merchant.id);
    expect(entries).toContainEqual(expect.objectContaining({ action: 'member.removed', target: removedOwner.user.id, details: expect.objectContaining({ revoked_invitations: [byRemoved.body.id] }) }));
    expect(entries).toContainEqual(expect.objectContaining({ action: 'member.role_changed', target: demotedOwner.user.id, details: expect.objectContaining({ revoked_invitations: [byDemoted.body.id] }) }));
  });

  it('is refused at acceptance when the inviter lost the right some other way', async () => {
    const merchant = await onboard(service);
    await member(service, merchant.id, 'owner');
    const inviter = await member(service, merchant.id, 'owner');
    const sent = await asMember(service, inviter, 'POST', '/team/invitations', { body: { email: uniqueEmail(), role: 'owner' } });
    await service.deps.db('people').where({ id: inviter.user.id }).update({ role: 'developer' });
    expect(await accept(sent.body.accept_url)).toMatchObject(invalidInvitation);
  });

  it('is listed and revoked by the operator through the admin API', async () => {
    const merchant = await onboard(service);
    const sent = await adminInvite(service, merchant.id, uniqueEmail(), 'developer');
    const listed = await asAdmin('GET', `/admin/v1/merchants/${merchant.id}/invitations`);
    expect([listed.status, listed.body.results.map((r: { id: string }) => r.id), listed.body.has_more]).toEqual([200, [sent.body.id], false]);
    expect((await asAdmin('GET', '/admin/v1/merchants/mer_unknown/invitations')).status).toBe(404);
    expect((await asAdmin('DELETE', `/admin/v1/merchants/${merchant.id}/invitations/${sent.body.id}`)).body).toEqual({ id: sent.body.id, revoked: true });
    expect((await asAdmin('DELETE', `/admin/v1/merchants/${merchant.id}/invitations/${sent.body.id}`)).status).toBe(404);
    expect(await accept(sent.body.accept_url)).toMatchObject(invalidInvitation);
  });
});

describe("the operator's invitations", () => {
  it('are listed and revoked by operator admins only', async () => {
    const admin = await operator(service, 'operator_admin');
    const viewer = await operator(service, 'operator_viewer');
    const sent = await asOperator(service, admin, 'POST', '/admin/v1/operators/invitations', { body: { email: uniqueEmail('op'), role: 'operator_viewer' } });
    expect(sent.status).toBe(201);
    const listed = await asOperator(service, admin, 'GET', '/admin/v1/operators/invitations?limit=100');
    expect(listed.body.results).toContainEqual(expect.objectContaining({ id: sent.body.id, invited_by: admin.user.id, invited_by_email: admin.email.toLowerCase() }));
    expect((await asOperator(service, viewer, 'GET', '/admin/v1/operators/invitations')).status).toBe(403);
    expect((await asOperator(service, viewer, 'DELETE', `/admin/v1/operators/invitations/${sent.body.id}`)).status).toBe(403);
    expect((await asOperator(service, admin, 'DELETE', `/admin/v1/operators/invitations/${sent.body.id}`)).body).toEqual({ id: sent.body.id, revoked: true });
    expect(await accept(sent.body.accept_url)).toMatchObject(invalidInvitation);
    expect(await auditActions(null)).toContainEqual(expect.objectContaining({ action: 'invitation.revoked', target: sent.body.id }));
  });

  it("die when their inviter is demoted or removed, for operators and for the merchants' people they invited", async () => {
    const merchant = await onboard(service);
    const inviter = await operator(service, 'operator_admin');
    const toOperators = await asOperator(service, inviter, 'POST', '/admin/v1/operators/invitations', { body: { email: uniqueEmail('op'), role: 'operator_admin' } });
    const toMerchant = await asOperator(service, inviter, 'POST', `/admin/v1/merchants/${merchant.id}/invitations`, { body: { email: uniqueEmail('owner'), role: 'owner' } });
    expect([toOperators.status, toMerchant.status]).toEqual([201, 201]);
    expect((await asAdmin('PATCH', `/admin/v1/operators/${inviter.user.id}`, { role: 'operator_viewer' })).status).toBe(200);
    expect(await accept(toOperators.body.accept_url)).toMatchObject(invalidInvitation);
    expect(await accept(toMerchant.body.accept_url)).toMatchObject(invalidInvitation);

    const second = await operator(service, 'operator_admin');
    const again = await asOperator(service, second, 'POST', '/admin/v1/operators/invitations', { body: { email: uniqueEmail('op'), role: 'operator_viewer' } });
    expect((await asAdmin('DELETE', `/admin/v1/operators/${second.user.id}`)).status).toBe(200);
    expect((await asAdmin('GET', '/admin/v1/operators/invitations?limit=100')).body.results.map((r: { id: string }) => r.id)).not.toContain(again.body.id);
  });

  it('a new invitation of the same email replaces the open one', async () => {
    const email = uniqueEmail('op');
    const first = await inviteOperator(service, email, 'operator_admin');
    const second = await inviteOperator(service, email, 'operator_viewer');
    expect([first.status, second.status]).toEqual([201, 201]);
    const open = (await asAdmin('GET', '/admin/v1/operators/invitations?limit=100')).body.results.map((r: { id: string }) => r.id);
    expect(open).toContain(second.body.id);
    expect(open).not.toContain(first.body.id);
  });
});
