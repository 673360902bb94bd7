import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (packages chromium and chromium-driver); `npx playwright install` cannot download here. */
export const CHROMIUM = '/usr/bin/chromium';

/** Skips the test when Chromium is missing, except in CI (CI=true), where that is a failure. */
export function requireChromium(test: Mocha.Context): void {
  if (existsSync(CHROMIUM)) return;
  if (process.env.CI === 'true') throw new Error(`Chromium is required in CI (CI=true) but ${CHROMIUM} does not exist`);
  console.log('      (skipped: Chromium is not installed)');
  test.skip();
}

/** The `<script src>` and `<link href>` references of a page. */
export function references(html: string): { scripts: string[]; links: string[] } {
  const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/gi)].map((m) => m[1]!);
  const links = [...html.matchAll(/<link\b[^>]*\bhref="([^"]+)"/gi)].map((m) => m[1]!);
  return { scripts, links };
}

/** Headless Chromium with no background traffic (this machine has no internet); `args` are added. */
export function launchChromium(args: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...args,
    ],
  });
}

/** A page that may reach only `origin`, and what it did wrong: errors, CSP refusals, off-origin requests. */
export interface WatchedPage {
  page: Page;
  /** Uncaught errors and console errors (a CSP refusal is one too). */
  pageErrors: string[];
  /** Every `securitypolicyviolation` event, collected before any script of the page runs. */
  violations: string[];
  /** Requests to anywhere but `origin` (aborted: the page must work without them). */
  offOrigin: string[];
  /** Every console message, for a failure's explanation. */
  consoleMessages: string[];
}

export async function watchedPage(browser: Browser, origin: string): Promise<WatchedPage> {
  const page = await browser.newPage();
  const watched: WatchedPage = { page, pageErrors: [], violations: [], offOrigin: [], consoleMessages: [] };
  page.on('pageerror', (error) => watched.pageErrors.push(error.message));
  page.on('console', (message) => {
    watched.consoleMessages.push(`${message.type()}: ${message.text()}`);
    if (message.type() === 'error' || /content security policy/i.test(message.text()))
      watched.pageErrors.push(message.text());
  });
  await page.exposeFunction('reportCspViolation', (text: string) => watched.violations.push(text));
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => {
    window.reportCspViolation(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber);
  });`);
  await page.route('**', async (route) => {
    const target = route.request().url();
    if (target.startsWith('data:') || new URL(target).origin === origin) return route.continue();
    watched.offOrigin.push(target);
    return route.abort();
  });
  return watched;
}
