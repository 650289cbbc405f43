import type { Browser } from 'playwright-core';
import { currentTotpCode } from '../../src/identity/secrets';
import { collectErrors, HTML_FROM_STRING_PROBE, launchChromium } from '../support/browser';
import { startService, type Service } from '../support/harness';
import { onboard, request } from '../support/http';
import { latestMailTo, linkIn } from '../support/mailpit';
import { adminInvite, signIn, uniqueEmail } from '../support/merchant-accounts';

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

async function usePage(url: string, options: { enrol: boolean; password: string }) {
  const page = await browser.newPage();
  const errors = collectErrors(page);
  await page.goto(url);
  let secret: string | null = null;
  if (options.enrol) {
    await page.click('#enrol');
    await page.waitForSelector('#secret:not([hidden])');
    secret = /\(secret ([A-Z2-7]+)\)/.exec((await page.textContent('#secret')) ?? '')![1]!;
    await page.fill('#code', currentTotpCode(secret));
  }
  await page.fill('#password', options.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('#result:not(:empty)');
  const result = await page.textContent('#result');
  expect(errors).toEqual([]);
  // Last: the refused assignment is itself reported as a console error.
  expect(await page.evaluate(HTML_FROM_STRING_PROBE)).toBe('refused');
  await page.close();
  return { result, secret };
}

it('the invitation page sets the password and enrols an authenticator app; the person then signs in with a code', async () => {
  const merchant = await onboard(service, { environment: 'production' });
  const invited = await adminInvite(service, merchant.id, uniqueEmail('owner'), 'owner');
  const link = linkIn(await latestMailTo(invited.body.email, /invitation/));
  const { result, secret } = await usePage(link, { enrol: true, password: PASSWORD });
  // The recovery codes are shown once, with the enrolment.
  expect(result).toMatch(/^Your account is ready: sign in to the dashboard\. Your recovery codes, shown this once .*: ([a-z0-9]{5}-[a-z0-9]{5} ?){10}$/);
  // The acceptance spent the current code (a code works once): the next step's signs in.
  const owner = await signIn(service, invited.body.email, PASSWORD, { totp_code: currentTotpCode(secret!, 1) });
  expect(owner.user.role).toBe('owner');
  // The link is spent: the page says so, with no form.
  const page = await browser.newPage();
  await page.goto(link);
  expect(await page.textContent('main')).toContain('used, expired or unknown');
  expect(await page.$('form')).toBeNull();
  await page.close();
});

it('the reset page sets a new password', async () => {
  const merchant = await onboard(service);
  const invited = await adminInvite(service, merchant.id, uniqueEmail('dev'), 'developer');
  await usePage(invited.body.accept_url, { enrol: false, password: PASSWORD });
  await request(service.baseUrl, 'POST', '/merchant/v1/password-resets', { body: { email: invited.body.email } });
  const { result } = await usePage(linkIn(await latestMailTo(invited.body.email, /Reset/)), { enrol: false, password: 'the newest password of all' });
  expect(result).toBe('Your password is changed: sign in with it.');
  await signIn(service, invited.body.email, 'the newest password of all');
});
