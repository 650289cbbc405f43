import { chromium, type Browser, type Page } from 'playwright-core';
import AxeBuilder from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ID_PREFIX } from '../../src/domain/ids';
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

/** Where checkPage writes its screenshots: <page>-<width>.png (git-ignored). */
export const SCREENSHOTS = path.resolve(__dirname, '../../test-results/screenshots');

/** The widths a page is judged at: a desktop and a phone. */
const WIDTHS = [1280, 390] as const;

/**
 * A raw id as text: one of the contract's prefixes (src/domain/ids.ts) and a run of base62. The
 * prefixes of secrets shown once (key_, secret_, wss_) are not ids a name could replace.
 */
const RAW_ID = new RegExp(`\\b(?:${Object.entries(ID_PREFIX).filter(([kind]) => !['apiKey', 'clientSecret', 'signingSecret'].includes(kind)).map(([, prefix]) => prefix).join('|')})[0-9A-Za-z]{8,}`, 'g');

/**
 * Text on screen that is a raw id outside the places ids belong: a code element marked as an id
 * (code.id), a copy button, a secret shown once (.secrets). Answers each as "<id> in <tag>".
 */
function visibleRawIds(page: Page): Promise<string[]> {
  // A script string: the page's DOM is not this file's (no DOM types here).
  return page.evaluate(`(() => {
    const pattern = new RegExp(${JSON.stringify(RAW_ID.source)}, 'g');
    const found = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('code.id, button.copy, .secrets, script, style, [hidden], template')) continue;
      if (!parent.getClientRects().length) continue;
      for (const match of node.textContent.match(pattern) || []) found.push(match + ' in <' + parent.tagName.toLowerCase() + (parent.className ? '.' + String(parent.className).replace(/ /g, '.') : '') + '>');
    }
    return found;
  })()`);
}

export interface PageCheckOptions {
  /**
   * A page this branch does not own: its findings are reported (console.warn) instead of failing
   * the test, with the reason given here.
   */
  reportOnly?: string;
}

/**
 * What every page a browser test opens must be, judged at 1280 and 390 px: (a) no serious or
 * critical axe-core violation, (b) nothing scrolls sideways, (c) no raw id shown as text where a
 * name belongs (ids in code.id, copy buttons and title attributes are fine), and (d) a full-page
 * screenshot in test-results/screenshots/<name>-<width>.png. The page is left at 1280 px.
 */
export async function checkPage(page: Page, name: string, options: PageCheckOptions = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const findings: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.waitForTimeout(100);
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    if (overflow > 0) findings.push(`scrolls sideways by ${overflow} px at ${width} px`);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  const { violations } = await new AxeBuilder({ page }).analyze();
  for (const violation of violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')) {
    findings.push(`axe ${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((n) => n.target.join(' ')).slice(0, 3).join('; ')})`);
  }
  for (const id of await visibleRawIds(page)) findings.push(`raw id shown: ${id}`);
  if (options.reportOnly && findings.length) {
    console.warn(`checkPage ${name} (reported, not failed: ${options.reportOnly}):\n  ${findings.join('\n  ')}`);
    return;
  }
  expect([name, findings]).toEqual([name, []]);
}
