import type { Browser, Page } from 'playwright-core';
import { currentTotpCode } from '../../src/identity/secrets';
import { checkPage, collectErrors, HTML_FROM_STRING_PROBE, launchChromium } from '../support/browser';
import { startService, type Service } from '../support/harness';
import { onboard, request } from '../support/http';
import { latestMailTo, linkIn, type Mail } from '../support/mailpit';
import { adminInvite, asMember, member, signIn, uniqueEmail } from '../support/merchant-accounts';
import { inviteOperator } from '../support/operators';

/** The pages the invitation and reset mails link to, used as a person would, in Chromium. */
let service: Service;
let browser: Browser;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await service.stop();
});

const PASSWORD = 'chosen in the browser';

const firstLine = (mail: Mail) => mail.text.split('\n')[0]!.trim();

/** A new page at desktop width (in a context of its own: axe opens a page beside it), its script errors collected. */
async function openPage(url: string): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('close', () => void context.close());
  const errors = collectErrors(page);
  await page.goto(url);
  return { page, errors };
}

/**
 * Fills the page a mail's link opens: with `enrol`, the authenticator (the secret read from the
 * page, its QR code checked, a code computed from it), then the password; each step checked as a
 * page (checkPage) under `name`. Answers what the page then says, the recovery codes it shows and
 * where its sign-in link goes.
 */
async function usePage(url: string, name: string, options: { enrol: boolean; password: string }) {
  const { page, errors } = await openPage(url);
  await checkPage(page, name);
  let secret: string | null = null;
  if (options.enrol) {
    await page.click('#enrol');
    await page.waitForSelector('#enrolment:not([hidden])');
    secret = (await page.textContent('#secret-code'))!;
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    // The QR code is an image the browser decoded (a PNG data URL from the API), not a link to copy.
    expect(await page.evaluate(`(() => { const img = document.getElementById('qr'); return [img.src.slice(0, 22), img.naturalWidth > 0]; })()`)).toEqual(['data:image/png;base64,', true]);
    await checkPage(page, `${name}-enrolled`);
    await page.fill('#code', currentTotpCode(secret));
  }
  await page.fill('#password', options.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('#done:not([hidden])');
  const result = await page.textContent('#done-text');
  const codes = await page.locator('#codes-list li').allTextContents();
  const signInHref = await page.getAttribute('#sign-in', 'href');
  await checkPage(page, `${name}-done`);
  expect(errors).toEqual([]);
  // Last: the refused assignment is itself reported as a console error.
  expect(await page.evaluate(HTML_FROM_STRING_PROBE)).toBe('refused');
  await page.close();
  return { result, secret, codes, signInHref };
}

it('the invitation page names the business, the inviter and the role, enrols an authenticator with a QR code, and links to the sign-in; the person then signs in with a code', async () => {
  const merchant = await onboard(service, { name: 'Acme Hardware', environment: 'production' });
  const invited = await adminInvite(service, merchant.id, uniqueEmail('owner'), 'owner');
  const mail = await latestMailTo(invited.body.email, /invitation/);
  expect(firstLine(mail)).toBe('The operator invited you to join Acme Hardware on the payments dashboard as Owner.');
  const link = linkIn(mail);
  const { page } = await openPage(link);
  expect(await page.textContent('h1')).toBe('Join Acme Hardware');
  expect(await page.textContent('main')).toContain(`The operator invited ${invited.body.email} to join Acme Hardware on the payments dashboard as Owner.`);
  await page.close();

  const { result, secret, codes, signInHref } = await usePage(link, 'invitation', { enrol: true, password: PASSWORD });
  expect(result).toBe(`Your account is ready: sign in as ${invited.body.email}.`);
  // The recovery codes are shown once, with the enrolment, one per line.
  expect(codes).toHaveLength(10);
  for (const code of codes) expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
  expect(signInHref).toBe('/merchant/login');
  // The acceptance spent the current code (a code works once): the next step's signs in.
  const owner = await signIn(service, invited.body.email, PASSWORD, { totp_code: currentTotpCode(secret!, 1) });
  expect(owner.user.role).toBe('owner');
  // The link is spent: the page says so, with no form, and the way to the sign-in page.
  const spent = await openPage(link);
  expect(await spent.page.textContent('main')).toContain('used, expired or unknown');
  expect(await spent.page.$('form')).toBeNull();
  await checkPage(spent.page, 'invitation-spent');
  await spent.page.close();
});

it("an owner's invitation names the owner; an operator's names the operator dashboard, the role in words, and links to its sign-in", async () => {
  const merchant = await onboard(service, { name: 'Bramble & Co' });
  const owner = await member(service, merchant.id, 'owner');
  const email = uniqueEmail('dev');
  expect((await asMember(service, owner, 'POST', '/team/invitations', { body: { email, role: 'developer' } })).status).toBe(201);
  const mail = await latestMailTo(email, /invitation/);
  expect(mail.subject).toBe('Your invitation to Bramble & Co on the payments dashboard');
  expect(firstLine(mail)).toBe(`${owner.email} invited you to join Bramble & Co on the payments dashboard as Developer.`);
  const { page } = await openPage(linkIn(mail));
  expect(await page.textContent('main')).toContain(`${owner.email} invited ${email} to join Bramble & Co on the payments dashboard as Developer.`);
  await page.close();

  const operatorEmail = uniqueEmail('operator');
  const invited = await inviteOperator(service, operatorEmail, 'operator_admin');
  const operatorMail = await latestMailTo(operatorEmail, /invitation/);
  expect(firstLine(operatorMail)).toBe("The operator invited you to join the operator's payments dashboard as Operator admin.");
  const { result, signInHref } = await usePage(invited.body.accept_url, 'operator-invitation', { enrol: true, password: PASSWORD });
  expect([result, signInHref]).toEqual([`Your account is ready: sign in as ${operatorEmail.toLowerCase()}.`, '/dashboard/login']);
});

it('the reset page sets a new password', async () => {
  const merchant = await onboard(service);
  const invited = await adminInvite(service, merchant.id, uniqueEmail('dev'), 'developer');
  await usePage(invited.body.accept_url, 'invitation-without-authenticator', { enrol: false, password: PASSWORD });
  await request(service.baseUrl, 'POST', '/merchant/v1/password-resets', { body: { email: invited.body.email } });
  const { result, signInHref } = await usePage(linkIn(await latestMailTo(invited.body.email, /Reset/)), 'reset-password', { enrol: false, password: 'the newest password of all' });
  expect([result, signInHref]).toEqual(['Your password is changed: sign in with it.', '/merchant/login']);
  await signIn(service, invited.body.email, 'the newest password of all');
});
