import type { Browser, BrowserContext, Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Service } from '../support/harness';
import { request, uniqueCustomer } from '../support/http';
import { WebhookReceiver } from '../support/receiver';
import { checkPage, collectErrors, HTML_FROM_STRING_PROBE, useServiceWithBrowser, toastShows } from '../support/browser';
import { attempt, CARD, createCheckout, openShop, pausedForReview, waitFor, type Shop } from '../support/fixtures';
import { latestMailTo, linkIn } from '../support/mailpit';
import { acceptOperatorInvitation, inviteOperator } from '../support/operators';
import { currentTotpCode } from '../../src/identity/secrets';
import { member, PASSWORD, uniqueEmail } from '../support/merchant-accounts';

/**
 * The merchant dashboard driven by a real browser (Debian's chromium through playwright-core)
 * against the real service, workflows and Mailpit: an owner invited by the operator, then a
 * reviewer invited by the owner, each doing their part. Every page is checked (checkPage: axe,
 * 390 px, raw ids) and screenshotted at 1280 and 390 px into test-results/screenshots/ (git-ignored).
 */
let service: Service;
let browser: Browser;
let receiver: WebhookReceiver;
const ARTIFACTS = path.resolve(__dirname, '../../test-results/merchant-dashboard');
const XSS_NAME = '<img src=x onerror=alert(1)>';
const TIMEOUT = 30_000;

useServiceWithBrowser(ARTIFACTS, (env) => ({ service, receiver, browser } = env));

async function confirm(page: Page, text: RegExp): Promise<void> {
  const dialog = page.locator('dialog#confirm');
  await dialog.waitFor({ state: 'visible' });
  expect(await dialog.locator('#confirm-text').textContent()).toMatch(text);
  await page.locator('#confirm-ok').click();
}

/**
 * Accepts the invitation mailed to `email` on the page its link opens: a password and, with
 * `enrolTotp`, an authenticator (the secret read from the page, a code computed from it).
 * Answers the secret, if enrolled.
 */
async function acceptInvitation(page: Page, email: string, enrolTotp: boolean): Promise<string | null> {
  const mail = await latestMailTo(email, /invitation/i);
  await page.goto(linkIn(mail));
  await page.locator('#password').fill(PASSWORD);
  let secret: string | null = null;
  if (enrolTotp) {
    await page.getByRole('button', { name: 'Enrol an authenticator app' }).click();
    secret = (await page.locator('#secret-code').filter({ hasText: /^[A-Z2-7]+$/ }).textContent())!;
    await page.locator('#code').fill(currentTotpCode(secret));
  }
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#done-text').filter({ hasText: 'Your account is ready' }).waitFor();
  return secret;
}

/** Signs in on /merchant/login, reached by the redirect from /merchant; the code when the API asks for one. */
async function signIn(page: Page, email: string, secret: string | null): Promise<void> {
  await page.goto(`${service.baseUrl}/merchant`);
  await page.waitForURL('**/merchant/login');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (secret) {
    // The code is the next step of signing in, not an error.
    await page.locator('#code-note').filter({ hasText: 'enter the code it shows now' }).waitFor();
    expect(await page.locator('#error').isVisible()).toBe(false);
    await checkPage(page, 'merchant-login-code-step');
    await page.getByLabel('Authenticator code').fill(currentTotpCode(secret, 1)); // a code works once: the acceptance spent this step's
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.waitForURL(/\/merchant$/);
  await page.locator('#who').filter({ hasText: email }).waitFor();
}

/** Every request the page made that was answered 4xx or 5xx, as `METHOD /path status`. */
function refusedRequests(page: Page): string[] {
  const refused: string[] = [];
  page.on('response', (res) => {
    if (res.status() >= 400) refused.push(`${res.request().method()} ${new URL(res.url()).pathname} ${res.status()}`);
  });
  return refused;
}

async function pausedWithdrawal(shop: Shop, amount: number) {
  const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: amount });
  const res = await attempt(service, checkout, { payment_method: CARD() });
  expect(res.status).toBe(202);
  return { checkout, reviewId: res.body.review.id as string };
}

describe('merchant dashboard', () => {
  let ownerContext: BrowserContext;
  let operatorContext: BrowserContext;
  let reviewerContext: BrowserContext;
  beforeEach(async () => {
    ownerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    operatorContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    reviewerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });
  afterEach(async () => {
    await ownerContext.close();
    await reviewerContext.close();
    await operatorContext.close();
  });

  it('the whole story: an owner and a reviewer set up, pay, deliver, resend, decide and lift, and the audit log shows who did each', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 100 } });
    const merchantId = shop.merchant.id;
    const ownerEmail = uniqueEmail('owner');
    const reviewerEmail = uniqueEmail('reviewer');

    // 1. The operator, signed in to the operator dashboard as themselves, invites the owner from the merchant's page.
    const operatorEmail = uniqueEmail('operator');
    const operatorSecret = await acceptOperatorInvitation(service, (await inviteOperator(service, operatorEmail, 'operator_admin')).body.accept_url);
    const operatorPage = await operatorContext.newPage();
    const operatorErrors = collectErrors(operatorPage);
    await operatorPage.goto(`${service.baseUrl}/dashboard/login`);
    await operatorPage.getByLabel('Email', { exact: true }).fill(operatorEmail);
    await operatorPage.getByLabel('Password').fill(PASSWORD);
    await operatorPage.getByLabel('Authenticator code').fill(currentTotpCode(operatorSecret, 1));
    await operatorPage.getByRole('button', { name: 'Sign in' }).click();
    await operatorPage.locator('#who').filter({ hasText: operatorEmail }).waitFor();
    await operatorPage.goto(`${service.baseUrl}/dashboard/merchants?id=${merchantId}`);
    const inviteForm = operatorPage.locator('form.invite');
    await inviteForm.getByLabel('Email').fill(ownerEmail);
    await inviteForm.getByLabel('Role').selectOption('owner');
    await checkPage(operatorPage, 'operator-invites-owner');
    await inviteForm.getByRole('button', { name: 'Send invitation' }).click();
    await inviteForm.locator('[role=status]').filter({ hasText: `Invited ${ownerEmail} as owner` }).waitFor();
    expect(operatorErrors.filter((e) => !e.startsWith('Failed to load resource'))).toEqual([]);

    // 2. The owner accepts from the mail, enrols an authenticator, and signs in with its code.
    const owner = await ownerContext.newPage();
    const ownerErrors = collectErrors(owner);
    const ownerRefused = refusedRequests(owner);
    const ownerSecret = await acceptInvitation(owner, ownerEmail, true);
    await owner.goto(`${service.baseUrl}/merchant/login`);
    await checkPage(owner, 'merchant-login');
    await signIn(owner, ownerEmail, ownerSecret);
    expect(await owner.locator('#environment').textContent()).toBe('sandbox');
    expect(await owner.locator('#enrol-totp').isVisible()).toBe(false);
    expect(await owner.locator('#nav a[data-page="team"]').isVisible()).toBe(true);

    // 3. An API key, checkout.failed enabled, a declined sandbox payment made with the new key, its delivery, a resend.
    await owner.goto(`${service.baseUrl}/merchant/developers`);
    await owner.getByRole('button', { name: 'Issue a new API key' }).click();
    const secrets = owner.locator('#api-keys .secrets').filter({ hasText: 'shown once' });
    await secrets.waitFor();
    const apiKey = (await secrets.locator('code').first().textContent())!;
    expect(apiKey).toMatch(/^key_/);
    const failedBox = owner.locator('input[name="enabled_events"][value="checkout.failed"]');
    expect(await failedBox.isChecked()).toBe(false);
    const describedBy = await failedBox.getAttribute('aria-describedby');
    if (describedBy) expect(await owner.locator(`#${describedBy}`).textContent()).toMatch(/checkout\.failed is sent/);
    await failedBox.check();
    await owner.getByRole('button', { name: 'Save events' }).click();
    await toastShows(owner, 'Events saved.');

    const keyShop: Shop = { merchant: { ...shop.merchant, api_key: apiKey }, customerId: shop.customerId };
    const declined = await createCheckout(service, keyShop, { type: 'deposit', fixed_amount_cents: 1234_56 });
    await attempt(service, declined, { payment_method: CARD('4000000000000002') });
    await waitFor(() => receiver.forCheckout(declined.id).some((r) => r.body.type === 'checkout.failed'), TIMEOUT, 'checkout.failed delivery');
    const failedEvent = await service.deps.db('events').where({ checkout_id: declined.id, type: 'checkout.failed' }).first();
    const paid = await createCheckout(service, keyShop, { type: 'deposit', fixed_amount_cents: 2500 });
    const paidAttempt = await attempt(service, paid, { payment_method: CARD() });
    await waitFor(async () => (await service.deps.db('charges').where({ id: paidAttempt.body.charge.id }).first())?.status === 'succeeded', TIMEOUT, 'deposit');

    await owner.goto(`${service.baseUrl}/merchant/developers`);
    const eventCard = owner.locator(`[data-event="${failedEvent.id}"]`);
    await eventCard.filter({ hasText: 'HTTP 200' }).waitFor();
    // Each delivery shows the payload it sent (collapsed) and the receiver's status and answer body.
    await eventCard.locator('details.payload summary').click();
    expect(JSON.parse((await eventCard.locator('details.payload pre').textContent())!)).toEqual(expect.objectContaining({ event_id: failedEvent.id, type: 'checkout.failed' }));
    expect(await eventCard.locator('ol.attempts > li').first().textContent()).toMatch(/HTTP 200 in .+Answer: ok$/);
    await checkPage(owner, 'merchant-developers');
    // On a phone the sections are their summaries, a screen or so tall; on a wide screen they open again.
    await owner.setViewportSize({ width: 390, height: 844 });
    await owner.locator('#event-log:not([open])').waitFor();
    expect(await owner.evaluate('document.documentElement.scrollHeight')).toBeLessThan(1200);
    await owner.setViewportSize({ width: 1280, height: 900 });
    await owner.locator('#event-log[open]').waitFor();
    await eventCard.getByRole('button', { name: 'Resend' }).click();
    await confirm(owner, /checkout\.failed/);
    await toastShows(owner, 'Event queued for redelivery');
    await waitFor(() => receiver.forCheckout(declined.id).filter((r) => r.body.type === 'checkout.failed').length === 2, TIMEOUT, 'the resent delivery');
    await owner.reload();
    await eventCard.filter({ hasText: 'series 2' }).waitFor();

    // The webhook URL saved again, the signing secret rolled with an overlap, the onboarding key revoked.
    await owner.getByRole('button', { name: 'Save URL' }).click();
    await toastShows(owner, 'Webhook URL saved.');
    await owner.getByLabel('Overlap (hours)').fill('2');
    await owner.getByRole('button', { name: 'Roll signing secret' }).click();
    await confirm(owner, /keeps signing beside the new one for 2 hours/);
    await owner.locator('#webhook .secrets code').filter({ hasText: /^wss_/ }).waitFor();
    expect(await owner.locator('#previous-secret').textContent()).toMatch(/^The previous secret keeps signing beside the new one until /);
    // The signing secret, revealed after a fresh code of the owner's authenticator: the one the roll answered, hidden again on a press.
    const rolledSecret = (await owner.locator('#webhook .secrets code').filter({ hasText: /^wss_/ }).textContent())!;
    expect(await owner.locator('#secret-source').textContent()).toMatch(/got one when it was opened; rolling makes a new one/);
    await service.deps.db('people').where({ email: ownerEmail }).update({ totp_last_step: null }); // as if the next 30 s step had come
    await owner.getByLabel('Code from your authenticator app, or a recovery code').fill(currentTotpCode(ownerSecret!));
    await owner.getByRole('button', { name: 'Reveal' }).click();
    await owner.locator('#signing-secret').filter({ hasText: rolledSecret }).waitFor();
    await checkPage(owner, 'merchant-developers-secret');
    await owner.getByRole('button', { name: 'Hide' }).click();
    expect(await owner.locator('#signing-secret').count()).toBe(0);
    const oldKey = shop.merchant.api_key;
    await owner.locator(`[data-key="${oldKey.slice(0, 12)}"]`).getByRole('button', { name: 'Revoke' }).click();
    await confirm(owner, new RegExp(`Revoke the API key ${oldKey.slice(0, 12)}`));
    await toastShows(owner, 'API key revoked.');
    // The contract answers a refused key 422, as it does every authentication failure.
    expect((await request(service.baseUrl, 'GET', `/api/v1/customers/${shop.customerId}`, { token: oldKey })).status).toBe(422);
    expect((await request(service.baseUrl, 'GET', `/api/v1/customers/${shop.customerId}`, { token: apiKey })).status).toBe(200);

    // The home page: today's volume as money; the payments page: the checkout, its charges and timeline; a refund after a confirmation.
    await owner.goto(`${service.baseUrl}/merchant`);
    await owner.locator('[data-period="today"] [data-figure="gross"]').filter({ hasText: '$25.00' }).waitFor();
    await checkPage(owner, 'merchant-home');
    await owner.goto(`${service.baseUrl}/merchant/payments`);
    await owner.locator(`[data-checkout="${declined.id}"]`).filter({ hasText: '$1,234.56' }).waitFor();
    await checkPage(owner, 'merchant-payments');
    await owner.getByLabel('Search payments').fill(declined.id);
    await owner.getByRole('button', { name: 'Search' }).click();
    await owner.waitForURL(/q=chk_/);
    await owner.locator(`[data-checkout="${declined.id}"]`).waitFor();
    expect(await owner.locator('[data-checkout]').count()).toBe(1);
    await owner.goto(`${service.baseUrl}/merchant/payments`);
    await owner.locator(`[data-checkout="${paid.id}"] a`).first().click();
    await owner.locator('#timeline [data-kind="webhook.attempt"]').first().waitFor();
    const timeline = (await owner.locator('#timeline').textContent())!;
    expect([timeline.includes('A deposit charge of $25.00 was created'), /\d cents/.test(timeline), /Delivery attempt \d+ of checkout\.succeeded: HTTP \d+ in /.test(timeline)]).toEqual([true, false, true]);
    await checkPage(owner, 'merchant-checkout');
    await owner.locator(`[data-charge="${paidAttempt.body.charge.id}"]`).getByRole('button', { name: 'Refund' }).click();
    await confirm(owner, /Refund \$25\.00 to Ada Lovelace/);
    await toastShows(owner, 'Charge refunded.');

    // 4. The owner invites a reviewer, who accepts from the mail and signs in in a second browser, then enrols an authenticator.
    await owner.goto(`${service.baseUrl}/merchant/team`);
    // A refusal shows the API's error and hint: the last owner cannot remove themselves.
    await owner.locator(`[data-person="${ownerEmail}"]`).getByRole('button', { name: 'Remove' }).click();
    await confirm(owner, /Remove owner-/);
    await toastShows(owner, 'The last owner stays. Make another person an owner first');
    await owner.locator('#invite').getByLabel('Email').fill(reviewerEmail);
    await owner.locator('#invite select[name="role"]').selectOption('reviewer');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await toastShows(owner, `Invitation mailed to ${reviewerEmail}`);
    await owner.locator(`li[data-invitation="${reviewerEmail.toLowerCase()}"]`).filter({ hasText: `Invited by ${ownerEmail.toLowerCase()}` }).waitFor();
    const reviewer = await reviewerContext.newPage();
    const reviewerErrors = collectErrors(reviewer);
    const reviewerRefused = refusedRequests(reviewer);
    await acceptInvitation(reviewer, reviewerEmail, false);
    await signIn(reviewer, reviewerEmail, null);
    expect(await reviewer.locator('#nav a[data-page="team"]').isVisible()).toBe(false);
    expect(await reviewer.locator('#nav a[data-page="audit"]').isVisible()).toBe(false);
    await reviewer.getByRole('link', { name: 'Enrol authenticator' }).click();
    await reviewer.waitForURL('**/merchant/security');
    await checkPage(reviewer, 'merchant-security');
    await reviewer.getByRole('button', { name: 'Enrol an authenticator app' }).click();
    const reviewerSecret = (await reviewer.locator('#totp-secret').textContent())!;
    await reviewer.getByLabel('Code from the new app').fill(currentTotpCode(reviewerSecret));
    await reviewer.getByRole('button', { name: 'Confirm' }).click();
    await toastShows(reviewer, 'Authenticator app enrolled');
    // The recovery codes are shown once, right after the enrolment.
    expect(await reviewer.locator('#recovery-codes li').count()).toBe(10);
    await checkPage(reviewer, 'merchant-security-recovery-codes');
    expect((await service.deps.db('people').where({ email: reviewerEmail }).first()).totp_enabled_at).not.toBeNull();

    // 5. The reviewer approves one withdrawal and declines another, each after a second press naming amount and customer.
    const first = await pausedWithdrawal(keyShop, 1500);
    const second = await pausedWithdrawal(keyShop, 2500);
    await reviewer.goto(`${service.baseUrl}/merchant/reviews`);
    const approveCard = reviewer.locator(`[data-review="${first.reviewId}"]`);
    await approveCard.waitFor();
    await checkPage(reviewer, 'merchant-reviews');
    await approveCard.getByRole('button', { name: 'Approve', exact: true }).click();
    await approveCard.getByRole('button', { name: 'Approve $15.00 to Ada Lovelace' }).click();
    await toastShows(reviewer, 'Review approved.');
    const declineCard = reviewer.locator(`[data-review="${second.reviewId}"]`);
    await declineCard.getByRole('button', { name: 'Decline', exact: true }).click();
    await declineCard.getByRole('button', { name: 'Decline $25.00 to Ada Lovelace' }).click();
    await toastShows(reviewer, 'Review declined.');
    const decided = await service.deps.db('reviews').whereIn('id', [first.reviewId, second.reviewId]).orderBy('amount_cents');
    expect(decided.map((r) => [r.status, r.decided_by])).toEqual([['approved', reviewerEmail], ['declined', reviewerEmail]]);

    // 6. The owner lifts a KYC restriction of a customer whose name is markup: shown as text, never as an element.
    const created = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: apiKey, body: uniqueCustomer({ first_name: XSS_NAME, last_name: 'Hacker' }) });
    expect(created.status).toBe(201);
    const customerId = created.body.id as string;
    await service.deps.db('customers').where({ id: customerId }).update({
      restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME', restricted_at: new Date(),
      restriction_evidence: JSON.stringify({ rule: 'kyc_name_match', kyc_record: { first_name: 'Grace', last_name: 'Hopper' } }),
    });
    const alerts: string[] = [];
    owner.on('dialog', (dialog) => {
      alerts.push(dialog.message());
      void dialog.dismiss();
    });
    await owner.goto(`${service.baseUrl}/merchant/customers?restricted=true`);
    const customerCard = owner.locator(`[data-customer="${customerId}"]`);
    await customerCard.waitFor();
    expect(await customerCard.locator('.customer-name').textContent()).toBe(`${XSS_NAME} Hacker`);
    expect(await owner.locator('img[src="x"]').count()).toBe(0);
    await checkPage(owner, 'merchant-customers');
    await customerCard.getByRole('button', { name: 'Lift restriction' }).click();
    await confirm(owner, /KYC_DOES_NOT_MATCH_PROFILE_NAME/);
    await toastShows(owner, 'Restriction lifted.');
    expect((await service.deps.db('customers').where({ id: customerId }).first()).restriction_reason).toBeNull();
    expect(alerts).toEqual([]);

    // The team page, then the audit log: each step with who did it.
    await owner.goto(`${service.baseUrl}/merchant/team`);
    await owner.locator(`[data-person="${reviewerEmail}"]`).waitFor();
    await checkPage(owner, 'merchant-team');
    await owner.goto(`${service.baseUrl}/merchant/audit`);
    await owner.locator('[data-audit]').first().waitFor();
    await checkPage(owner, 'merchant-audit');
    const steps: Array<[string, string]> = [
      ['invitation.created', `${operatorEmail} (operator)`],
      ['api_key.issued', ownerEmail],
      ['api_key.revoked', ownerEmail],
      ['webhook_url.changed', ownerEmail],
      ['signing_secret.rolled', ownerEmail],
      ['signing_secret.revealed', ownerEmail],
      ['enabled_events.changed', ownerEmail],
      ['event.resent', ownerEmail],
      ['charge.refunded', ownerEmail],
      ['invitation.created', ownerEmail],
      ['totp.enabled', reviewerEmail],
      ['review.approved', reviewerEmail],
      ['review.declined', reviewerEmail],
      ['customer.unrestricted', ownerEmail],
    ];
    for (const [action, who] of steps) {
      await owner.locator(`[data-audit="${action}"]`).filter({ has: owner.locator('.actor', { hasText: who }) }).first().waitFor({ timeout: 5_000 });
    }
    // Sentences a merchant reads: who refunded how much, and a settings change with its before and after.
    await owner.locator('[data-audit="charge.refunded"]', { hasText: `Refunded $25.00 by ${ownerEmail}.` }).first().waitFor({ timeout: 5_000 });
    await owner.locator('[data-audit="enabled_events.changed"] .changes', { hasText: /The enabled events changed from .+ to / }).first().waitFor({ timeout: 5_000 });
    // The only refused requests: the sign-in before the code was asked for, the last owner's removal, and the browser's favicon.
    const scriptErrors = (errors: string[]) => errors.filter((e) => !e.startsWith('Failed to load resource'));
    expect([scriptErrors(ownerErrors), scriptErrors(reviewerErrors)]).toEqual([[], []]);
    expect(ownerRefused.filter((r) => !r.endsWith('/favicon.ico 404'))).toEqual(['POST /merchant/v1/session 401', expect.stringMatching(/^DELETE \/merchant\/v1\/team\/usr_\w+ 422$/)]);
    expect(reviewerRefused.filter((r) => !r.endsWith('/favicon.ico 404'))).toEqual([]);
    expect(await owner.evaluate(HTML_FROM_STRING_PROBE)).toBe('refused');

    // The owner changes the reviewer's role, then removes them: their open page is sent to the sign-in page.
    await owner.goto(`${service.baseUrl}/merchant/team`);
    const person = owner.locator(`[data-person="${reviewerEmail}"]`);
    await person.locator('select').selectOption('viewer');
    await person.getByRole('button', { name: 'Change role' }).click();
    await toastShows(owner, `${reviewerEmail} is now Viewer.`);
    await owner.locator(`[data-person="${reviewerEmail}"]`).getByRole('button', { name: 'Remove' }).click();
    await confirm(owner, new RegExp(`Remove ${reviewerEmail.replace(/[.+]/g, '\\$&')} \\(Viewer\\)`));
    await toastShows(owner, `${reviewerEmail} removed.`);
    await reviewer.goto(`${service.baseUrl}/merchant/reviews`);
    await reviewer.waitForURL('**/merchant/login');

    // Signing out ends the session: the pages send the browser back to the sign-in page.
    await owner.getByRole('button', { name: 'Sign out' }).click();
    await owner.waitForURL('**/merchant/login');
    await owner.goto(`${service.baseUrl}/merchant/audit`);
    await owner.waitForURL('**/merchant/login');
  }, 300_000);

  it('payments as one table (filters, CSV, a payment\'s page with its refund and who asked) and a Home read at a glance, at 1280 and 390 px', async () => {
    const shop = await openShop(service, { review: { enabled: true, min_amount_cents: 500 } });
    const owner = await member(service, shop.merchant.id, 'owner');
    const pay = async (body: Record<string, unknown>, card = CARD()) => {
      const checkout = await createCheckout(service, shop, body);
      const res = await attempt(service, checkout, { payment_method: card });
      await waitFor(async () => ['succeeded', 'failed'].includes((await service.deps.db('charges').where({ id: res.body.charge.id }).first())?.status), TIMEOUT, 'the charge to settle');
      return { id: checkout.id as string, chargeId: res.body.charge.id as string };
    };
    const refunded = await pay({ type: 'deposit', fixed_amount_cents: 2500 });
    const purchase = await pay({ type: 'deposit', line_items: [{ name: 'Mug', price_cents: 1250, quantity: 2 }] }, CARD('5555555555554444'));
    const declined = await pay({ type: 'deposit', fixed_amount_cents: 700 }, CARD('4000000000000002'));
    await pausedForReview(service, shop);
    const page = await ownerContext.newPage();
    const errors = collectErrors(page);
    await signIn(page, owner.email, null);
    // Refunded from the payment's page, after a confirmation naming amount and customer.
    await page.goto(`${service.baseUrl}/merchant/payments?checkout=${refunded.id}`);
    await page.locator(`[data-charge="${refunded.chargeId}"]`).getByRole('button', { name: 'Refund' }).click();
    await confirm(page, /Refund \$25\.00 to Ada Lovelace/);
    await toastShows(page, 'Charge refunded.');

    // Home: a payment taken and refunded today is gross $25, refunds $25, net $0 (with the purchase: $50, $25, $25).
    await page.goto(`${service.baseUrl}/merchant`);
    const today = page.locator('[data-period="today"]');
    await today.locator('[data-figure="gross"]').filter({ hasText: '$50.00' }).waitFor();
    expect([await today.locator('[data-figure="refunds"]').textContent(), await today.locator('[data-figure="net"]').textContent()]).toEqual(['$25.00 · 1 refund', '$25.00']);
    expect(await page.locator('[data-period="last_30_days"] [data-figure="net"]').textContent()).toBe('$25.00');
    await page.locator('#volume-chart canvas').waitFor();
    expect(await page.locator('#open-reviews').textContent()).toContain('1 withdrawal awaits a decision ($15.00)');
    await checkPage(page, 'merchant-home');

    // Payments: one row per payment, refunded reads refunded (never completed), the card and what was bought.
    await page.goto(`${service.baseUrl}/merchant/payments`);
    const rows = page.locator('table.payments tbody tr');
    await rows.nth(3).waitFor();
    expect(await rows.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-checkout'), tr.getAttribute('data-status')]))).toEqual([
      [expect.stringMatching(/^chk_/), 'in_review'], [declined.id, 'failed'], [purchase.id, 'succeeded'], [refunded.id, 'refunded'],
    ]);
    const refundedRow = page.locator(`tr[data-checkout="${refunded.id}"]`);
    expect(await refundedRow.textContent()).not.toMatch(/completed/i);
    expect(await page.locator(`tr[data-checkout="${purchase.id}"]`).textContent()).toMatch(/\$25\.00.*succeeded.*Ada Lovelace.*mastercard ending 4444.*2 × Mug/);
    await checkPage(page, 'merchant-payments');
    // At 390 px the rows are labelled lines, no table header, and nothing scrolls sideways (checked above).
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.locator('table.payments thead').isVisible()).toBe(false);
    expect(await refundedRow.locator('td[data-label="Status"]').evaluate((td) => td.ownerDocument.defaultView!.getComputedStyle(td, '::before').content)).toBe('"Status"');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Filters: status, then an amount range in dollars; the CSV downloads what the filters select.
    await page.getByLabel('Status').selectOption('refunded');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/status=refunded/);
    await page.locator(`tr[data-checkout="${refunded.id}"]`).waitFor();
    expect(await rows.count()).toBe(1);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-csv').click()]);
    const csv = readFileSync((await download.path())!, 'utf8').trimEnd().split('\r\n');
    expect([download.suggestedFilename(), csv.length, csv[0]!.split(',')[0], csv[1]!.split(',').slice(0, 1)]).toEqual([expect.stringMatching(/^payments-.*\.csv$/), 2, 'id', [refunded.id]]);
    await page.goto(`${service.baseUrl}/merchant/payments`);
    await page.getByLabel('Min $').fill('10');
    await page.getByLabel('Max $').fill('24');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/min=10/);
    await page.locator('tr[data-status="in_review"]').waitFor();
    expect(await rows.count()).toBe(1);
    await page.goto(`${service.baseUrl}/merchant/payments?type=purchase`);
    await page.locator(`tr[data-checkout="${purchase.id}"]`).waitFor();
    expect(await rows.count()).toBe(1);

    // The payment's page: its card, its refund as a sentence naming who asked, its timeline in sentences.
    await page.goto(`${service.baseUrl}/merchant/payments`);
    await refundedRow.getByRole('link', { name: '$25.00' }).click();
    await page.locator('#refunds').filter({ hasText: `Refunded $25.00 by ${owner.email}.` }).waitFor();
    expect(await page.locator('dl.facts').first().textContent()).toContain('visa ending 4242');
    expect(await page.locator('#timeline').textContent()).toContain('The charge went from succeeded to refunded.');
    await checkPage(page, 'merchant-payment-refunded');
    await page.goto(`${service.baseUrl}/merchant/payments?checkout=${purchase.id}`);
    await page.locator('table.items').filter({ hasText: 'Mug' }).waitFor();
    expect(await page.locator('table.items tbody').textContent()).toBe('Mug2$12.50$25.00');
    await checkPage(page, 'merchant-payment-purchase');
    expect(errors.filter((e) => !e.startsWith('Failed to load resource'))).toEqual([]);
  }, 180_000);

  it('a viewer sees lists 25 rows at a time with "Load more", and no action the role may not take', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    for (let i = 0; i < 30; i++) {
      const res = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: shop.merchant.api_key, body: uniqueCustomer({ first_name: `Customer${i}` }) });
      expect(res.status).toBe(201);
    }
    await service.deps.db('customers').where({ merchant_id: shop.merchant.id }).update({ restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME', restricted_at: new Date() });
    const viewer = await member(service, shop.merchant.id, 'viewer');
    const page = await ownerContext.newPage();
    await signIn(page, viewer.email, null);
    for (const hidden of ['team', 'audit']) expect([hidden, await page.locator(`#nav a[data-page="${hidden}"]`).isVisible()]).toEqual([hidden, false]);
    // Opened by its address, a page the role may not use says which roles may: no endless "Loading…", no form it cannot use.
    for (const [name, label] of [['team', 'Team'], ['audit', 'Audit log']] as const) {
      await page.goto(`${service.baseUrl}/merchant/${name}`);
      const problem = page.locator('[data-problem="no-access"]');
      await problem.waitFor();
      expect(await problem.textContent()).toContain(`The ${label} page is not open to your role`);
      expect(await problem.textContent()).toContain('Only the Owner role can open it. You are signed in as Viewer.');
      expect(await page.locator('#page form').count()).toBe(0);
      await checkPage(page, `merchant-no-access-${name}`);
    }

    await page.goto(`${service.baseUrl}/merchant/customers`);
    await page.locator('[data-customer]').nth(24).waitFor();
    expect(await page.locator('[data-customer]').count()).toBe(25);
    expect(await page.getByRole('button', { name: 'Lift restriction' }).count()).toBe(0);
    await checkPage(page, 'merchant-customers-viewer');
    // A label wraps between words if it must, never inside one: at 390 px, "Restricted only" keeps each word whole.
    await page.setViewportSize({ width: 390, height: 844 });
    const wordLines = `(() => { const label = [...document.querySelectorAll('label.check')].find((l) => l.textContent.includes('Restricted only')); const text = [...label.childNodes].find((n) => n.nodeType === 3); return ['Restricted', 'only'].map((word) => { const range = document.createRange(); const at = text.textContent.indexOf(word); range.setStart(text, at); range.setEnd(text, at + word.length); return range.getClientRects().length; }); })()`;
    expect(await page.evaluate(wordLines)).toEqual([1, 1]);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.locator('[data-customer]').nth(30).waitFor();
    expect(await page.locator('[data-customer]').count()).toBe(31);
    expect(await page.getByRole('button', { name: 'Load more' }).isVisible()).toBe(false);

    await page.goto(`${service.baseUrl}/merchant/developers`);
    await page.locator('input[name="enabled_events"]').first().waitFor();
    expect(await page.getByRole('button', { name: 'Issue a new API key' }).count()).toBe(0);
    expect(await page.locator('input[name="enabled_events"]').first().isDisabled()).toBe(true);
    expect([await page.getByRole('button', { name: 'Reveal' }).count(), await page.locator('#secret-source').textContent()]).toEqual([0, expect.stringContaining('Owners and developers can reveal it')]);
    await checkPage(page, 'merchant-developers-viewer');
    // The server still refuses what the page hides.
    const issue = `fetch('/merchant/v1/me').then((r) => r.json()).then((me) => fetch('/merchant/v1/developers/api_keys', { method: 'POST', headers: { 'X-CSRF-Token': me.csrf_token } })).then((r) => r.status)`;
    expect(await page.evaluate(issue)).toBe(403);
  });

  it("operator credentials on the merchant's sign-in page are told to sign in at /dashboard/login, with a link", async () => {
    const email = uniqueEmail('operator');
    await acceptOperatorInvitation(service, (await inviteOperator(service, email, 'operator_viewer')).body.accept_url);
    const page = await ownerContext.newPage();
    await page.goto(`${service.baseUrl}/merchant/login`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#error').filter({ hasText: "This account signs in on the other dashboard. The operator's people sign in at /dashboard/login." }).waitFor();
    expect(await page.locator('#error a').getAttribute('href')).toBe('/dashboard/login');
    await checkPage(page, 'merchant-login-wrong-dashboard');
  });

  it('mails a reset link from the sign-in page\'s "Forgot your password?" form', async () => {
    const shop = await openShop(service);
    const viewer = await member(service, shop.merchant.id, 'viewer');
    const page = await ownerContext.newPage();
    await page.goto(`${service.baseUrl}/merchant/login`);
    await page.getByText('Forgot your password?').click();
    await page.getByLabel('Your email').fill(viewer.email);
    await page.getByRole('button', { name: 'Mail me a reset link' }).click();
    await page.locator('#forgot-result').filter({ hasText: 'a reset link is on its way' }).waitFor();
    expect(linkIn(await latestMailTo(viewer.email, /password/i))).toContain('/merchant/reset-password?token=');
  });
});
