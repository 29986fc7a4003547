import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../support/service';
import {
  BROWSER_TEST_TIMEOUT_MS,
  describeInBrowser,
  type DashboardPage,
  hasFocus,
  jobRow,
  launchBrowser,
  openDashboard,
  screenshot,
} from './browser';

// Functions given to page.evaluate run in the browser; the project compiles without the DOM
// library, so the page globals they use are declared here (declarations emit no code).
declare const sessionStorage: { length: number; setItem(key: string, value: string): void };
declare const localStorage: { length: number };

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

const TOKEN = 'dashboard-test-token-0123456789';

describeInBrowser('dashboard with SERVICE_API_TOKEN', () => {
  let service: TestService;
  let browser: Browser;
  let open: DashboardPage | undefined;
  const auth = { authorization: `Bearer ${TOKEN}` };

  beforeAll(async () => {
    [service, browser] = await Promise.all([
      startTestService({ env: { SERVICE_API_TOKEN: TOKEN } }),
      launchBrowser(),
    ]);
    const created = await service.request(
      'POST',
      '/api/jobs',
      { name: 'guarded', schedule: '@daily', command: 'true' },
      auth,
    );
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });
  afterEach(async () => {
    const problems = open?.problems ?? [];
    await open?.context.close();
    open = undefined;
    expect(problems).toEqual([]);
  });

  it('asks for the token once, refuses a wrong one clearly, and keeps it for the session only', async () => {
    open = await openDashboard(browser, service.url);
    const { page, context } = open;
    const dialog = page.getByRole('dialog', { name: 'Sign in to Crondeck' });
    await dialog.waitFor();
    const input = dialog.getByLabel('API token');
    expect(await input.getAttribute('type')).toBe('password');
    expect(await hasFocus(input)).toBe(true);

    // Escape does not dismiss it: nothing behind it works without a token.
    await page.keyboard.press('Escape');
    await dialog.waitFor();

    await input.fill('not-the-right-token-at-all');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: /Wrong token.*invalid API token/ })
      .waitFor();
    await screenshot(page, 'dashboard-token-wrong.png', false);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    await input.fill(TOKEN);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await dialog.waitFor({ state: 'detached' });
    await jobRow(page, 'guarded').waitFor();
    await page.getByText('Scheduler running').waitFor();

    // In sessionStorage, never in the URL or in localStorage.
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([TOKEN]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(page.url()).not.toContain(TOKEN);
    expect(open.requests.some((request) => request.includes(TOKEN))).toBe(false);

    // A reload in the same tab does not ask again.
    await page.reload();
    await jobRow(page, 'guarded').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);

    // A new browser session asks again.
    const other = await context.browser()!.newContext();
    try {
      const otherPage = await other.newPage();
      await otherPage.goto(service.url);
      await otherPage.getByRole('dialog', { name: 'Sign in to Crondeck' }).waitFor();
    } finally {
      await other.close();
    }

    // "Forget token" signs out.
    await page.getByRole('button', { name: 'Forget token' }).click();
    await page.getByRole('dialog', { name: 'Sign in to Crondeck' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('says so when a kept token stops working', async () => {
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const dialog = page.getByRole('dialog', { name: 'Sign in to Crondeck' });
    // The first load's 401 clears whatever token is kept: let it happen before keeping a stale one,
    // or on a slow machine it may clear the token this test is about.
    await dialog.waitFor();
    await page.evaluate(() => sessionStorage.setItem('crondeck.apiToken', 'a-token-that-was-rotated-away'));
    await page.reload();
    await dialog.getByText('The saved API token is no longer accepted').waitFor();
    await dialog.getByLabel('API token').fill(TOKEN);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await jobRow(page, 'guarded').waitFor();
  });
});
