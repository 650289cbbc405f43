import { chromium, type Browser, type Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { useServiceWithReceiver, type FileEnvironment } from './file-environment';

/** Debian's chromium through playwright-core (playwright cannot download its own browser here). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Uncaught script errors and console errors (CSP violations, refused frames, failed loads). */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

/**
 * A script for page.evaluate that tries to turn a string into HTML on the page: 'refused' when
 * Trusted Types (CSP require-trusted-types-for 'script', no policy) throw, 'assigned' otherwise.
 */
export const HTML_FROM_STRING_PROBE = `(() => { try { document.body.insertAdjacentHTML('beforeend', '<img src=x onerror="window.__xss=3">'); return 'assigned'; } catch (error) { return error instanceof TypeError ? 'refused' : String(error); } })()`;

/**
 * Screenshots a page at desktop width (`<name>.png`) and at 390 px (`<name>-390.png`) into `dir`,
 * and checks nothing overflows sideways on the phone.
 */
export async function screenshotsAtBothWidths(page: Page, dir: string, name: string): Promise<void> {
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(100);
  const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
  expect([name, overflow]).toEqual([name, 0]);
  await page.screenshot({ path: path.join(dir, `${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Waits for the dashboard's toast (#toast) to show `text`. */
export async function toastShows(page: Page, text: string | RegExp, timeout = 30_000): Promise<void> {
  await page.locator('#toast').filter({ hasText: text }).waitFor({ state: 'visible', timeout });
}

/**
 * The file's service and webhook receiver (useServiceWithReceiver) and one chromium for the whole
 * file, launched once the service runs and closed before it stops; `artifacts`, the screenshots'
 * folder, is made first.
 */
export function useServiceWithBrowser(artifacts: string, bind: (env: FileEnvironment & { browser: Browser }) => void): void {
  let browser: Browser | undefined;
  useServiceWithReceiver(() => {}, {
    afterStart: async (env) => {
      mkdirSync(artifacts, { recursive: true });
      browser = await launchChromium();
      bind({ ...env, browser });
    },
    beforeStop: async () => browser?.close(),
    timeoutMs: 120_000,
  });
}
