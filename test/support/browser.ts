/**
 * Debian's chromium driven by Playwright, as every page test uses it: a
 * light-scheme context in which any request to another origin is refused and
 * recorded (the pages must need nothing but this service). Without
 * /usr/bin/chromium the page tests skip with the reason shown, except in CI
 * (CI=true), where they fail: .ci/run installs chromium.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

/** The reason `file`'s browser tests skip, or false; printed once so a skip is visible. */
export function browserSkip(file: string): string | false {
  const reason = !existsSync(CHROMIUM) && process.env.CI !== 'true' ? `${CHROMIUM} is missing (install Debian's chromium: apt-get install chromium); CI installs it and fails without it` : false;
  if (reason) process.stderr.write(`${file}: browser tests SKIPPED: ${reason}\n`);
  return reason;
}

export interface PageBrowser {
  browser: Browser;
  context: BrowserContext;
  /** Requests to any origin but `base`, refused. */
  foreign: string[];
  close(): Promise<void>;
}

/** A browser whose pages may load only from `base` (the service under test). */
export async function openPageBrowser(base: string, viewport?: { width: number; height: number }): Promise<PageBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ colorScheme: 'light', ...(viewport ? { viewport } : {}) });
  const foreign: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base + '/')) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  return { browser, context, foreign, close: () => browser.close().catch(() => {}) };
}
