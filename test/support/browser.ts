import { chromium, type Browser, type Page } from 'playwright-core';

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
