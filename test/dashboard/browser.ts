import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import { BROWSER_SKIPPED_ENV } from '../support/browserSkipped';
import { DEFAULT_CHROMIUM_PATH } from '../support/chromium';

/** Debian's chromium, installed by globalSetup where missing (chromium.ts). Never a browser download. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH;

const ARTIFACTS_DIR = path.join(__dirname, '..', '..', 'test-artifacts');

/** Browser tests start a service, a browser and a page: they get more time than the default. */
export const BROWSER_TEST_TIMEOUT_MS = 60_000;

/**
 * `describe` for tests that drive the browser. Where globalSetup could neither find nor install
 * one, they are reported as skipped, and the suite's last line says why and how to run them.
 */
export const describeInBrowser: jest.Describe = process.env[BROWSER_SKIPPED_ENV] ? describe.skip : describe;

/** `args`: more command-line switches, e.g. `--host-resolver-rules` to give a test site a name. */
export async function launchBrowser(args: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}. The dashboard tests drive a real browser: ` +
        'install it with `apt-get update && apt-get install -y chromium` (or set CHROMIUM_PATH).',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
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

export interface DashboardPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors, CSP violations and requests to other origins, seen so far. */
  problems: string[];
  /** Every request the page made, as `METHOD path?query`. */
  requests: string[];
}

/**
 * Opens the dashboard of `baseUrl` in a fresh context (its own sessionStorage) and records
 * anything that should never happen: script errors, CSP violations, requests to other origins.
 */
export async function openDashboard(
  browser: Browser,
  baseUrl: string,
  options: BrowserContextOptions & { hash?: string } = {},
): Promise<DashboardPage> {
  const { hash = '', ...contextOptions } = options;
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, ...contextOptions });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  const requests: string[] = [];
  const origin = new URL(baseUrl).origin;
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) {
      problems.push(`CSP: ${message.text()}`);
    }
  });
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'blob:' || url.protocol === 'data:') return;
    if (url.origin !== origin) problems.push(`external request: ${request.url()}`);
    requests.push(`${request.method()} ${url.pathname}${url.search}`);
  });
  await page.goto(`${baseUrl}/${hash}`);
  return { context, page, problems, requests };
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, name);
  await page.screenshot({ path: file, fullPage });
  return file;
}

/** Whether the element has the keyboard focus. */
export function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    (element: { ownerDocument: { activeElement: unknown } }) =>
      element === element.ownerDocument.activeElement,
  );
}

/** The table row of a job, found by its exact name. */
export function jobRow(page: Page, name: string) {
  return page.locator('.jobs-table tbody tr').filter({
    has: page.locator('.job-name', { hasText: new RegExp(`^${escapeRegExp(name)}$`) }),
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
