import type { Browser, BrowserContext, Page } from 'playwright-core';
import path from 'node:path';
import type { Service } from '../support/harness';
import { onboard, request, uniqueCustomer } from '../support/http';
import { WebhookReceiver } from '../support/receiver';
import { checkPage, collectErrors, HTML_FROM_STRING_PROBE, useServiceWithBrowser, toastShows } from '../support/browser';
import { attempt, CARD, createCheckout, getCharge, openShop, waitFor, type Shop } from '../support/fixtures';
import { currentTotpCode } from '../../src/identity/secrets';
import { latestMailTo, linkIn } from '../support/mailpit';
import { member, PASSWORD, uniqueEmail } from '../support/merchant-accounts';
import { acceptOperatorInvitation, inviteOperator, operatorSignInRequest } from '../support/operators';

/**
 * The dashboard driven by a real browser (Debian's chromium through playwright-core) against
 * the real service and workflows. Every page is checked (checkPage: axe, 390 px, raw ids) and
 * screenshotted at 1280 and 390 px into test-results/screenshots/ (git-ignored).
 */
let service: Service;
let browser: Browser;
let context: BrowserContext;
let receiver: WebhookReceiver;
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/dashboard');
/** The email of the operator the last signIn() signed in (recorded with their decisions). */
let reviewer = '';
/** The authenticator secret of the operator signIn() signed in last (the test acts as the app). */
let reviewerSecret = '';
const XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';
const TIMEOUT = 30_000;

useServiceWithBrowser(ARTIFACTS, (env) => ({ service, receiver, browser } = env));

beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
});
afterEach(async () => context.close());

/** Fills the sign-in form. */
async function fillSignIn(page: Page, email: string, password: string, code: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Authenticator code').fill(code);
}

/** A new operator (an operator_admin unless `role` says otherwise; invited with the admin token, accepted with an authenticator) signs in through the page. */
async function signIn(role = 'operator_admin'): Promise<Page> {
  reviewer = uniqueEmail('reviewer');
  const invited = await inviteOperator(service, reviewer, role);
  const secret = await acceptOperatorInvitation(service, invited.body.accept_url);
  reviewerSecret = secret;
  const page = await context.newPage();
  await page.goto(`${service.baseUrl}/dashboard/reviews`);
  await page.waitForURL('**/dashboard/login');
  await fillSignIn(page, reviewer, PASSWORD, currentTotpCode(secret, 1));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard/reviews');
  await page.locator('#who').filter({ hasText: reviewer }).waitFor();
  return page;
}

/** The sign-in page with the service's answer to the sign-in replaced by `answer` (the page is what is tested). */
async function signInAnswered(answer: { status: number; body: unknown }): Promise<Page> {
  const page = await context.newPage();
  await page.route('**/dashboard/session', (route) =>
    route.request().method() === 'POST' ? route.fulfill({ status: answer.status, contentType: 'application/json', body: JSON.stringify(answer.body) }) : route.continue(),
  );
  await page.goto(`${service.baseUrl}/dashboard/login`);
  await fillSignIn(page, 'someone@example.com', 'not the password', '123456');
  await page.getByRole('button', { name: 'Sign in' }).click();
  return page;
}

async function confirm(page: Page): Promise<void> {
  await page.locator('dialog#confirm').waitFor({ state: 'visible' });
  await page.locator('#confirm-ok').click();
}

async function pausedWithdrawal(shop: Shop, amount: number, card = '4242424242424242') {
  const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: amount });
  const res = await attempt(service, checkout, { payment_method: CARD(card) });
  expect(res.status).toBe(202);
  return { checkout, reviewId: res.body.review.id as string };
}

describe('dashboard', () => {
  it('the sign-in page refuses a wrong password, and fits a 390 px phone', async () => {
    const page = await context.newPage();
    await page.goto(`${service.baseUrl}/dashboard/login`);
    await fillSignIn(page, uniqueEmail('nobody'), 'not the password', '123456');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Email or password is wrong.').waitFor();
    expect(page.url()).toMatch(/\/dashboard\/login$/);
    await checkPage(page, 'operator-login');
  });

  it('a refused sign-in shows its hint, such as how long a throttled address waits', async () => {
    const page = await signInAnswered({ status: 429, body: { error: 'Too many failed sign-ins for this account.', hint: 'Try again in 42 seconds.' } });
    await page.locator('#error').filter({ hasText: 'Too many failed sign-ins for this account. Try again in 42 seconds.' }).waitFor();
    expect(page.url()).toMatch(/\/dashboard\/login$/);
  });

  it('the sign-in form submitted before its script runs never puts the password in the address', async () => {
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await noScript.newPage();
      await page.goto(`${service.baseUrl}/dashboard/login`);
      await fillSignIn(page, 'someone@example.com', 'a-secret-password-0123', '123456');
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
      expect(page.url()).not.toContain('a-secret-password-0123');
      expect(page.url()).not.toContain('password=');
    } finally {
      await noScript.close();
    }
  });

  it('signs out with the page\'s button: the cookie the browser had is refused from then on', async () => {
    const page = await signIn();
    const [cookie] = (await context.cookies()).filter((c) => c.name === 'dashboard_session');
    const copied = { cookie: `dashboard_session=${cookie!.value}` };
    expect((await request(service.baseUrl, 'GET', '/admin/v1/merchants', { headers: copied })).status).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/dashboard/login');
    expect((await context.cookies()).filter((c) => c.name === 'dashboard_session')).toEqual([]);
    expect((await request(service.baseUrl, 'GET', '/admin/v1/merchants', { headers: copied })).status).toBe(401);
    expect((await request(service.baseUrl, 'GET', '/dashboard/session', { headers: copied })).status).toBe(401);
  });

  it('signs in, approves one review and declines another after a confirmation, and shows who decided', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 100 } });
    const first = await pausedWithdrawal(shop, 1500);
    const second = await pausedWithdrawal(shop, 2500);
    const page = await signIn();
    const errors = collectErrors(page);

    const approveCard = page.locator(`[data-review="${first.reviewId}"]`);
    await approveCard.waitFor();
    await expect(approveCard.textContent()).resolves.toMatch(/Evidence[\s\S]*KYC[\s\S]*Geo check/);
    await checkPage(page, 'operator-reviews');
    await approveCard.getByRole('button', { name: 'Approve' }).click();
    // The first click only asks; cancelling changes nothing.
    await page.locator('dialog#confirm').getByRole('button', { name: 'Cancel' }).click();
    expect((await service.deps.db('reviews').where({ id: first.reviewId }).first()).status).toBe('pending');
    await approveCard.getByRole('button', { name: 'Approve' }).click();
    await confirm(page);
    await toastShows(page, 'Review approved.');

    const declineCard = page.locator(`[data-review="${second.reviewId}"]`);
    await declineCard.getByRole('button', { name: 'Decline' }).click();
    await confirm(page);
    await toastShows(page, 'Review declined.');

    const rows = await service.deps.db('reviews').whereIn('id', [first.reviewId, second.reviewId]).orderBy('amount_cents');
    expect(rows.map((r) => [r.status, r.decided_by])).toEqual([['approved', reviewer], ['declined', reviewer]]);
    await waitFor(async () => (await service.deps.db('charges').where({ checkout_id: first.checkout.id })).length === 1);
    expect(await service.deps.db('charges').where({ checkout_id: second.checkout.id })).toHaveLength(0);

    await page.goto(`${service.baseUrl}/dashboard/reviews?status=approved`);
    await page.locator(`[data-review="${first.reviewId}"]`).filter({ hasText: `approved by ${reviewer}` }).waitFor();
    expect(errors).toEqual([]);
  });

  // Audit regression: the Approved and Declined tabs asked for the 200 oldest reviews and reversed
  // them, so once 200 decisions were older, a decision just made never showed.
  it('shows the latest decisions on the Approved tab, whatever number of older ones there are', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 100 } });
    const latest = await pausedWithdrawal(shop, 1700);
    const approved = await request(service.baseUrl, 'POST', `/admin/v1/reviews/${latest.reviewId}/approve`, { token: service.adminToken });
    expect(approved.status).toBe(200);
    // 200 older approved reviews, each on a copy of this checkout (a checkout has one review).
    const { db } = service.deps;
    await db.raw(
      `INSERT INTO checkouts SELECT (jsonb_populate_record(c, jsonb_build_object('id', 'chk_old' || g || '_' || left(md5(c.id), 16)))).* FROM checkouts c, generate_series(1, 200) g WHERE c.id = ?`,
      [latest.checkout.id],
    );
    await db.raw(
      `INSERT INTO reviews SELECT (jsonb_populate_record(r, jsonb_build_object('id', 'cpilr_old' || g || '_' || left(md5(r.id), 16), 'checkout_id', 'chk_old' || g || '_' || left(md5(r.checkout_id), 16), 'charge_id', NULL, 'attempt_key', NULL, 'created_at', now() - make_interval(days => 1, secs => g)))).* FROM reviews r, generate_series(1, 200) g WHERE r.id = ?`,
      [latest.reviewId],
    );
    const page = await signIn();
    await page.goto(`${service.baseUrl}/dashboard/reviews?status=approved`);
    await page.locator(`[data-review="${latest.reviewId}"]`).waitFor({ timeout: TIMEOUT });

    // One page at a time, saying more follow; Next reads on with the cursor, Previous comes back.
    const pager = page.locator('nav.pager');
    await pager.filter({ hasText: 'Page 1 · more on the next page' }).waitFor({ timeout: TIMEOUT });
    const firstPage = await page.locator('[data-review]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-review')));
    expect(firstPage).toHaveLength(25);
    await pager.getByRole('button', { name: 'Next →' }).click();
    await pager.filter({ hasText: 'Page 2 · more on the next page' }).waitFor({ timeout: TIMEOUT });
    const secondPage = await page.locator('[data-review]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-review')));
    expect(secondPage).toHaveLength(25);
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);
    await pager.getByRole('button', { name: '← Previous' }).click();
    await pager.filter({ hasText: 'Page 1' }).waitFor({ timeout: TIMEOUT });
    await page.locator(`[data-review="${latest.reviewId}"]`).waitFor({ timeout: TIMEOUT });
    expect(await pager.getByRole('button', { name: '← Previous' }).isDisabled()).toBe(true);
  });

  it('enables an event type in the merchant settings and the next webhook arrives; a new API key is shown once', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    const declined = async () => {
      const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 900 });
      const res = await attempt(service, checkout, { payment_method: CARD('4000000000000002') });
      await waitFor(async () => (await getCharge(service, shop, res.body.charge.id)).body.status === 'failed');
      return checkout;
    };
    const before = await declined();
    const page = await signIn();
    await page.goto(`${service.baseUrl}/dashboard/merchants?id=${shop.merchant.id}`);
    const failed = page.locator('input[name="enabled_events"][value="checkout.failed"]');
    await failed.waitFor();
    expect(await failed.isChecked()).toBe(false);
    // Beside checkout.failed, the note that a merchant taking withdrawals hears of reversed payouts only through it.
    const note = page.locator(`#${await failed.getAttribute('aria-describedby')}`);
    expect(await note.textContent()).toMatch(/takes withdrawals should enable this.*reversed after it succeeded/);
    expect(await note.isVisible()).toBe(true);
    await failed.check();
    await checkPage(page, 'operator-merchants');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await toastShows(page, 'Settings saved.');
    expect((await service.deps.db('merchants').where({ id: shop.merchant.id }).first()).settings.enabled_events).toEqual(['checkout.failed']);

    const after = await declined();
    await waitFor(() => receiver.forCheckout(after.id).some((r) => r.body.type === 'checkout.failed'), TIMEOUT, 'checkout.failed webhook');
    expect(receiver.forCheckout(before.id).some((r) => r.body.type === 'checkout.failed')).toBe(false);

    await page.getByRole('button', { name: 'Issue a new API key' }).click();
    const secrets = page.locator('.secrets').filter({ hasText: 'shown once' });
    await secrets.waitFor();
    const key = (await secrets.locator('code').first().textContent())!;
    expect(key).toMatch(/^key_/);
    expect((await request(service.baseUrl, 'GET', `/api/v1/customers/${shop.customerId}`, { token: key })).status).toBe(200);
    await page.reload();
    await page.getByRole('button', { name: 'Save settings' }).waitFor();
    expect(await page.locator('.secrets').count()).toBe(0);

    // Invites a person to the merchant; the invitation and its audit entry name the operator.
    const invitee = uniqueEmail('invitee');
    const inviteForm = page.locator('form.invite');
    await inviteForm.getByLabel('Email').fill(invitee);
    await inviteForm.getByLabel('Role').selectOption('developer');
    await inviteForm.getByRole('button', { name: 'Send invitation' }).click();
    await toastShows(page, 'Invitation sent.');
    await inviteForm.locator('[role=status]').filter({ hasText: `Invited ${invitee} as developer` }).waitFor();
    const invitation = await service.deps.db('invitations').where({ email: invitee }).first();
    expect([invitation.merchant_id, invitation.role]).toEqual([shop.merchant.id, 'developer']);
    const entry = await service.deps.db('audit_log').where({ action: 'invitation.created', target: invitation.id }).first();
    expect([entry.actor, entry.actor_email]).toEqual([invitation.invited_by, reviewer]);
  });

  it('an operator_admin invites an operator, changes a role and removes a person on the Operators page', async () => {
    const colleague = uniqueEmail('colleague');
    await acceptOperatorInvitation(service, (await inviteOperator(service, colleague, 'operator_viewer')).body.accept_url);
    const colleagueRow = async () => service.deps.db('people').where({ email: colleague }).first();
    const page = await signIn();
    await page.goto(`${service.baseUrl}/dashboard/operators`);
    const card = page.locator('li[data-operator]').filter({ hasText: colleague });
    await card.waitFor();
    await checkPage(page, 'operator-operators');
    await card.getByLabel(`Role of ${colleague}`).selectOption('operator_reviewer');
    await toastShows(page, `${colleague} is now Operator reviewer.`);
    expect((await colleagueRow()).role).toBe('operator_reviewer');

    const invitee = uniqueEmail('invitee');
    await page.getByLabel('Email').fill(invitee);
    await page.locator('form.invite').getByLabel('Role').selectOption('operator_viewer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await toastShows(page, 'Invitation sent.');
    const invitation = await service.deps.db('invitations').where({ email: invitee }).first();
    expect([invitation.merchant_id, invitation.role]).toEqual([null, 'operator_viewer']);

    // The invitation waits under Pending invitations until it is revoked; its link then stops working.
    const pending = page.locator(`li[data-invitation="${invitee.toLowerCase()}"]`);
    await pending.waitFor();
    await checkPage(page, 'operator-operators-pending-invitation');
    await pending.getByRole('button', { name: 'Revoke' }).click();
    await confirm(page);
    await toastShows(page, `Invitation of ${invitee.toLowerCase()} revoked.`);
    await pending.waitFor({ state: 'detached' });
    expect((await service.deps.db('invitations').where({ id: invitation.id }).first()).revoked_at).not.toBeNull();

    await card.getByRole('button', { name: 'Remove' }).click();
    await confirm(page);
    await toastShows(page, `${colleague} removed.`);
    expect(await colleagueRow()).toBeUndefined();
  });

  it('replays failed events by filter after the receiver recovers, with a dry-run count first; the timeline shows every attempt', async () => {
    const down = await new WebhookReceiver().start();
    down.responder = () => ({ status: 503 });
    try {
      const shop = await openShop(service, { webhook_url: down.url });
      const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 4200 });
      const res = await attempt(service, checkout, { payment_method: CARD() });
      const chargeId = res.body.charge.id as string;
      const failedEvent = await waitFor(async () => {
        const event = await service.deps.db('events').where({ checkout_id: checkout.id, type: 'checkout.succeeded' }).first();
        return event?.delivery_status === 'failed' ? event : undefined;
      }, TIMEOUT, 'delivery to fail');
      down.responder = () => ({ status: 200 });

      const page = await signIn();
      await page.goto(`${service.baseUrl}/dashboard/events?merchant_id=${shop.merchant.id}`);
      await page.locator(`[data-event="${failedEvent.id}"]`).filter({ hasText: 'HTTP 503' }).waitFor();
      const form = page.locator('form.replay');
      await form.getByLabel('Type').selectOption('checkout.succeeded');
      await form.getByLabel('Merchant id').fill(shop.merchant.id);
      await form.getByRole('button', { name: 'Count events' }).click();
      await form.getByText('1 event match this filter.').waitFor();
      await checkPage(page, 'operator-events');
      expect(down.requests.filter((r) => r.body?.event_id === failedEvent.id)).toHaveLength(5);
      await form.getByRole('button', { name: 'Replay 1 event' }).click();
      await confirm(page);
      await toastShows(page, '1 event queued for redelivery.');
      await waitFor(() => down.requests.filter((r) => r.body?.event_id === failedEvent.id).length === 6, TIMEOUT, 'the replayed event');

      // The checkout's timeline: search, open, read the webhook attempts and the Temporal link.
      await page.goto(`${service.baseUrl}/dashboard/checkouts`);
      await page.getByLabel('Search').fill(checkout.id);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.locator(`[data-checkout="${checkout.id}"] a`).click();
      const attempts = page.locator('[data-kind="webhook.attempt"]');
      await attempts.filter({ hasText: 'HTTP 200' }).waitFor({ timeout: TIMEOUT });
      expect(await attempts.filter({ hasText: 'HTTP 503' }).count()).toBe(5);
      expect(await attempts.filter({ hasText: /Delivery attempt \d+ of \w+\.\w+(?: \(delivery series \d+\))?: HTTP 503 in \d/ }).count()).toBe(5);
      await expect(attempts.filter({ hasText: 'HTTP 200' }).textContent()).resolves.toMatch(/Latency\s*\d+ ms[\s\S]*Response\s*ok/);
      const temporal = page.getByRole('link', { name: 'Open the workflow in Temporal Web UI' });
      expect(await temporal.getAttribute('href')).toBe(`http://localhost:8233/namespaces/default/workflows/${checkout.id}`);
      await checkPage(page, 'operator-checkout-timeline');

      // Refund the charge from the page.
      await page.locator(`[data-charge="${chargeId}"]`).getByRole('button', { name: 'Refund' }).click();
      await confirm(page);
      await toastShows(page, 'Charge refunded.');
      expect((await getCharge(service, shop, chargeId)).body.status).toBe('refunded');
      await page.goto(`${service.baseUrl}/dashboard/checkouts`);
      await page.locator(`[data-checkout="${checkout.id}"]`).waitFor();
      await checkPage(page, 'operator-checkouts');
    } finally {
      await down.stop();
    }
  });

  it('names merchants and customers on the queue, checkouts and customers; filters and counts the queue; finds merchants; settings in dollars and minutes', async () => {
    const tag = Math.random().toString(36).slice(2, 8);
    const shopNamed = async (name: string) => {
      const merchant = await onboard(service, { name, settings: { review: { enabled: true, min_amount_cents: 100 } } });
      const customer = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body: uniqueCustomer({ first_name: 'Grace', last_name: `Hopper${tag}` }) });
      return { merchant, customerId: customer.body.id as string } satisfies Shop;
    };
    const acme = await shopNamed(`Acme Games ${tag}`);
    const other = await shopNamed(`Bolt Sports ${tag}`);
    const small = await pausedWithdrawal(acme, 1500);
    const large = await pausedWithdrawal(acme, 9000);
    await pausedWithdrawal(other, 2000);
    await service.deps.db('reviews').where({ id: small.reviewId }).update({ created_at: new Date(Date.now() - 2 * 3_600_000) });
    const page = await signIn();
    const errors = collectErrors(page);

    // The queue for one merchant: each card names the merchant and the customer; the tabs count.
    await page.getByLabel('Merchant').selectOption({ label: `Acme Games ${tag}` });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/merchant_id=mer_/);
    const cards = page.locator('[data-review]');
    await page.locator(`[data-review="${large.reviewId}"]`).waitFor();
    expect(await cards.evaluateAll((all) => all.map((c) => c.getAttribute('data-review')))).toEqual([small.reviewId, large.reviewId]);
    const card = page.locator(`[data-review="${small.reviewId}"]`);
    expect(await card.textContent()).toMatch(new RegExp(`Merchant\\s*Acme Games ${tag}\\s*${acme.merchant.id}.*Customer\\s*Grace Hopper${tag}`));
    await page.locator('.tabs a[data-status="pending"]').filter({ hasText: 'Pending (2)' }).waitFor();
    expect(await page.locator('.tabs a[data-status="declined"]').textContent()).toBe('Declined (0)');
    await checkPage(page, 'operator-reviews');
    // Amount in dollars and age narrow further.
    await page.getByLabel('Min $').fill('50');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/min=50/);
    await page.locator('.tabs a[data-status="pending"]').filter({ hasText: 'Pending (1)' }).waitFor();
    expect(await cards.evaluateAll((all) => all.map((c) => c.getAttribute('data-review')))).toEqual([large.reviewId]);
    await page.goto(`${service.baseUrl}/dashboard/reviews?merchant_id=${acme.merchant.id}&age=60`);
    await page.locator('.tabs a[data-status="pending"]').filter({ hasText: 'Pending (1)' }).waitFor();
    expect(await cards.evaluateAll((all) => all.map((c) => c.getAttribute('data-review')))).toEqual([small.reviewId]);

    // Checkouts and customers name the merchant and the customer; the ids stay to copy.
    await page.goto(`${service.baseUrl}/dashboard/checkouts?q=${acme.merchant.id}`);
    const row = page.locator(`[data-list="checkouts"] [data-checkout="${large.checkout.id}"]`);
    await row.waitFor();
    expect([await row.locator('.customer-name').textContent(), await row.locator('.merchant-name').textContent()]).toEqual([`Grace Hopper${tag}`, `Acme Games ${tag}`]);
    expect(await row.locator('code.id').allTextContents()).toEqual([large.checkout.id, acme.customerId, acme.merchant.id]);
    await checkPage(page, 'operator-checkouts');
    await page.goto(`${service.baseUrl}/dashboard/checkouts?id=${large.checkout.id}`);
    await page.locator('dl.facts').filter({ hasText: `Acme Games ${tag}` }).filter({ hasText: `Grace Hopper${tag}` }).first().waitFor();
    await service.deps.db('customers').where({ id: other.customerId }).update({ restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME', restricted_at: new Date() });
    await page.goto(`${service.baseUrl}/dashboard/customers`);
    const customer = page.locator(`[data-customer="${other.customerId}"]`);
    await customer.filter({ hasText: `Bolt Sports ${tag}` }).waitFor();
    expect(await customer.locator('.customer-name').textContent()).toBe(`Grace Hopper${tag}`);
    await checkPage(page, 'operator-customers');

    // Merchants found by a name fragment; settings entered in dollars and minutes, stored in cents and seconds.
    await page.goto(`${service.baseUrl}/dashboard/merchants`);
    await page.getByLabel('Search merchants').fill(`acme games ${tag}`);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=acme/);
    await page.locator('.merchants a').filter({ hasText: `Acme Games ${tag}` }).waitFor();
    expect(await page.locator('.merchants li').count()).toBe(1);
    await page.locator('.merchants a').filter({ hasText: `Acme Games ${tag}` }).click();
    await page.locator('.detail h2').filter({ hasText: `Acme Games ${tag}` }).waitFor();
    await page.getByLabel('From amount ($)').fill('12.50');
    await page.getByLabel('Checkout expiry (minutes)').fill('45');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await toastShows(page, 'Settings saved.');
    const { settings } = await service.deps.db('merchants').where({ id: acme.merchant.id }).first();
    expect([settings.review.min_amount_cents, settings.checkout_expiry_seconds]).toEqual([1250, 2700]);
    await page.reload();
    expect([await page.getByLabel('From amount ($)').inputValue(), await page.getByLabel('Checkout expiry (minutes)').inputValue()]).toEqual(['12.50', '45']);
    await checkPage(page, 'operator-merchant-settings');
    expect(errors).toEqual([]);
  }, 180_000);

  it('escapes a <script> merchant name and customer name on every page, and lifts a restriction', async () => {
    const merchant = await onboard(service, { name: XSS, environment: 'production', settings: { kyc_required_for: ['deposit'], review: { enabled: true, min_amount_cents: 1 } } });
    const customer = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body: uniqueCustomer({ first_name: XSS, last_name: XSS }) });
    const shop: Shop = { merchant, customerId: customer.body.id };
    await request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', {
      token: merchant.api_key,
      body: { customer_id: shop.customerId, first_name: 'Other', last_name: 'Name', date_of_birth: '1990-01-01', address_line_1: '1 Main St', city: 'Albany', state: 'NY', postal_code: '12207', country: 'USA', provider: 'persona', verified: true },
    });
    // The withdrawal pauses for review before the blocked deposit restricts the customer: once
    // restricted, no attempt of the customer's is admitted, a review's included.
    await pausedWithdrawal(shop, 700, '4111111111111111');
    const blocked = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, blocked, { payment_method: CARD('4111111111111111') })).status).toBe(422);

    const page = await signIn();
    const errors = collectErrors(page);
    await page.locator('[data-review]').filter({ hasText: XSS }).first().waitFor();
    await page.goto(`${service.baseUrl}/dashboard/merchants?id=${merchant.id}`);
    await page.locator('.merchants a').filter({ hasText: XSS }).waitFor();
    await page.locator('h2').filter({ hasText: XSS }).waitFor();
    await page.goto(`${service.baseUrl}/dashboard/customers`);
    const card = page.locator(`[data-customer="${shop.customerId}"]`);
    await card.filter({ hasText: XSS }).waitFor();
    await checkPage(page, 'operator-customers');
    await page.goto(`${service.baseUrl}/dashboard/checkouts?id=${blocked.id}`);
    await page.getByText('Why it was blocked (evidence)').waitFor();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('script:not([src])').count()).toBe(0);

    await page.goto(`${service.baseUrl}/dashboard/customers`);
    await card.getByRole('button', { name: 'Unrestrict' }).click();
    await confirm(page);
    await toastShows(page, 'Restriction lifted.');
    expect((await service.deps.db('customers').where({ id: shop.customerId }).first()).restriction_reason).toBeNull();
    expect(errors).toEqual([]);
    // Audit: the pages also run under Trusted Types with no policy, so no string can become HTML
    // (last: the refusal is logged as a console error).
    expect(await page.evaluate(HTML_FROM_STRING_PROBE)).toBe('refused');
  });
});

describe('dashboard pages for what goes wrong, and the audit log', () => {
  it('"Forgot your password?" mails an operator a reset link whose page leads back to /dashboard/login', async () => {
    const email = uniqueEmail('forgetful');
    await acceptOperatorInvitation(service, (await inviteOperator(service, email, 'operator_viewer')).body.accept_url);
    const page = await context.newPage();
    await page.goto(`${service.baseUrl}/dashboard/login`);
    await page.getByText('Forgot your password?').click();
    await page.getByLabel('Your email').fill(email);
    await page.getByRole('button', { name: 'Mail me a reset link' }).click();
    await page.locator('#forgot-result').filter({ hasText: 'a reset link is on its way' }).waitFor();
    await checkPage(page, 'operator-login-forgot');
    await page.goto(linkIn(await latestMailTo(email, /password/i)));
    // An operator has an authenticator: the reset asks for its code, then sends them to their own sign-in page.
    await page.getByLabel('Its current code, or one of your recovery codes').waitFor();
    expect(await page.getAttribute('#sign-in', 'href')).toBe('/dashboard/login');
  });

  it("a merchant's person signing in here is told where to sign in instead, with a link", async () => {
    const merchant = await onboard(service);
    const person = await member(service, merchant.id, 'viewer');
    const page = await context.newPage();
    await page.goto(`${service.baseUrl}/dashboard/login`);
    await fillSignIn(page, person.email, PASSWORD, '123456');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#error').filter({ hasText: "This account signs in on the other dashboard. A merchant's people sign in at /merchant/login." }).waitFor();
    expect(await page.locator('#error a').getAttribute('href')).toBe('/merchant/login');
    await checkPage(page, 'operator-login-wrong-dashboard');
    // The wrong password for the same email says nothing about where the account is.
    await fillSignIn(page, person.email, 'not the password', '123456');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#error').filter({ hasText: 'Email or password is wrong.' }).waitFor();
  });

  it('a viewer opening the Operators or the Audit log page by its address is told which roles may, not left loading', async () => {
    const page = await signIn('operator_viewer');
    expect(await page.locator('#who').textContent()).toBe(`${reviewer} (Operator viewer)`);
    for (const [name, label] of [['operators', 'Operators'], ['audit', 'Audit log']] as const) {
      await page.goto(`${service.baseUrl}/dashboard/${name}`);
      const problem = page.locator('[data-problem="no-access"]');
      await problem.waitFor();
      expect(await problem.textContent()).toContain(`The ${label} page is not open to your role`);
      expect(await problem.textContent()).toContain('Only the Operator admin role can open it. You are signed in as Operator viewer.');
      expect(await page.locator(`#nav a[data-page="${name}"]`).isVisible()).toBe(false);
      expect(await page.locator('form').count()).toBe(0);
      await checkPage(page, `operator-no-access-${name}`);
    }
  });

  it('a page whose read fails (503, 500, 404) says so in words with Try again, never the raw answer; an address with no page is a page too', async () => {
    const page = await signIn();
    const operatorsList = /\/admin\/v1\/operators\?/;
    const answers = [
      [503, { error: 'The service is briefly unavailable.', hint: 'Retry the request in a moment.' }, 'The service is unavailable right now'],
      [500, { error: 'Internal server error.', hint: 'Try again; if it persists, contact the service operator.' }, 'Something went wrong on our side'],
      [404, { error: 'Not found.', hint: 'No route for GET /admin/v1/operators.' }, 'Not found'],
    ] as const;
    for (const [status, body, title] of answers) {
      await page.route(operatorsList, (route) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify({ ...body, request_id: 'req_from_the_test' }) }));
      await page.goto(`${service.baseUrl}/dashboard/operators`);
      const problem = page.locator('section.problem');
      await problem.getByRole('heading', { name: title }).waitFor();
      expect(await page.locator('main').textContent()).not.toMatch(/[{}"]/);
      expect(await page.locator('main').textContent()).not.toContain('Loading…');
      expect(await problem.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true);
      await checkPage(page, `operator-load-failed-${status}`);
      await page.unroute(operatorsList);
    }
    // Try again reads the page again, which now answers.
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('li[data-operator]').first().waitFor();

    const missing = await page.goto(`${service.baseUrl}/dashboard/no-such-page`);
    expect([missing!.status(), missing!.headers()['content-type']]).toEqual([404, expect.stringMatching(/^text\/html/)]);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await checkPage(page, 'operator-page-not-found');
    // A program still gets the API's JSON there.
    expect((await request(service.baseUrl, 'GET', '/dashboard/no-such-page')).body).toEqual(expect.objectContaining({ error: 'Not found.' }));
  });

  it('the Audit log page tells who did what, a page at a time, with the email and address of each refused sign-in and each merchant by name', async () => {
    const tried = uniqueEmail('intruder');
    const address = '203.0.113.77';
    expect((await operatorSignInRequest(service, { email: tried, password: 'not the password', totp_code: '123456' }, address)).status).toBe(401);
    // More entries than a page holds.
    for (let i = 0; i < 26; i++) await operatorSignInRequest(service, { email: uniqueEmail('guess'), password: 'not the password', totp_code: '123456' });
    const merchant = await onboard(service, { name: 'Audit Shop' });
    await member(service, merchant.id, 'developer');
    const page = await signIn();
    await page.goto(`${service.baseUrl}/dashboard/audit`);
    const entries = page.locator('li[data-audit]');
    await entries.first().waitFor();
    expect(await entries.count()).toBe(25);
    await page.locator('[data-audit="invitation.created"]').filter({ has: page.locator('.place', { hasText: 'Audit Shop' }) }).first().waitFor();
    await page.locator('[data-audit="invitation.created"]', { hasText: 'as Developer.' }).first().waitFor();
    await checkPage(page, 'operator-audit');
    const pager = page.locator('nav.pager');
    await pager.getByRole('button', { name: 'Next →' }).click();
    await pager.filter({ hasText: 'Page 2' }).waitFor();

    await page.getByLabel('By or tried as').fill(tried);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/actor=/);
    const failure = page.locator('[data-audit="sign_in.failed"]');
    await failure.filter({ hasText: `Someone from ${address} failed to sign in as ${tried} (wrong email or password).` }).waitFor();
    expect(await entries.count()).toBe(1);
    await checkPage(page, 'operator-audit-filtered');
  });
  it('Security: an operator replaces their authenticator app with a current code, scans its QR code and gets new recovery codes', async () => {
    const page = await signIn('operator_viewer');
    const letNextCodeCome = () => service.deps.db('people').where({ email: reviewer.toLowerCase() }).update({ totp_last_step: null });
    await page.getByRole('link', { name: 'Security' }).click();
    await page.waitForURL('**/dashboard/security');
    await page.getByRole('button', { name: 'Replace authenticator app' }).waitFor();
    await checkPage(page, 'operator-security');
    await letNextCodeCome();
    await page.getByLabel('Code from your current app, or a recovery code', { exact: true }).fill(currentTotpCode(reviewerSecret));
    await page.getByRole('button', { name: 'Replace authenticator app' }).click();
    const newSecret = (await page.locator('#totp-secret').textContent())!;
    expect(await page.locator('img.qr').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await checkPage(page, 'operator-security-scan');
    await letNextCodeCome();
    await page.getByLabel('Code from the new app').fill(currentTotpCode(newSecret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await toastShows(page, 'Authenticator app enrolled');
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    await checkPage(page, 'operator-security-recovery-codes');
    // The old app no longer signs in; the new one does.
    await letNextCodeCome();
    expect((await operatorSignInRequest(service, { email: reviewer, password: PASSWORD, totp_code: currentTotpCode(reviewerSecret) })).status).toBe(401);
    await letNextCodeCome();
    expect((await operatorSignInRequest(service, { email: reviewer, password: PASSWORD, totp_code: currentTotpCode(newSecret) })).status).toBe(200);
  });
});
