import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../support/service';
import {
  BROWSER_TEST_TIMEOUT_MS,
  type DashboardPage,
  describeInBrowser,
  jobRow,
  launchBrowser,
  openDashboard,
} from './browser';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/** Issue 11: the open jobs table asked describe again on every refresh when an answer was not a success. */
describeInBrowser('dashboard schedule descriptions', () => {
  let service: TestService;
  let browser: Browser;
  let open: DashboardPage | undefined;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
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

  const describeRequests = (expr: string) =>
    (open?.requests ?? []).filter((r) =>
      r.startsWith(`GET /api/cron/describe?expr=${encodeURIComponent(expr)}`),
    );

  /** Each keystroke in the filter renders the table again, as each 5 s refresh does. */
  async function renderSeveralTimes(page: DashboardPage['page']) {
    const filter = page.getByLabel('Filter jobs');
    for (const text of ['s', 'st', 'sto', 'st', '']) {
      await filter.fill(text);
    }
  }

  it('shows a stored schedule that is no longer accepted as invalid, asking once', async () => {
    // A job saved before H was refused: the API refuses it now, so put it in the table directly.
    const job = await service.request('POST', '/api/jobs', {
      name: 'stored-h',
      schedule: '@daily',
      command: 'true',
    });
    await service.db.pool.query('UPDATE jobs SET schedule = $1 WHERE id = $2', ['H * * * *', job.body.id]);
    open = await openDashboard(browser, service.url);
    const row = jobRow(open.page, 'stored-h');
    await row.locator('.cron-human', { hasText: 'invalid: H (hashed) is not supported' }).waitFor();
    await renderSeveralTimes(open.page);
    expect(describeRequests('H * * * *')).toHaveLength(1);
    await service.request('DELETE', `/api/jobs/${job.body.id}`);
  });

  it('asks once when describe fails, and says the description is unavailable', async () => {
    open = await openDashboard(browser, service.url);
    await open.page.route('**/api/cron/describe*', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"internal error"}' }),
    );
    const job = await service.request('POST', '/api/jobs', {
      name: 'store-5',
      schedule: '5 4 * * *',
      command: 'true',
    });
    const row = jobRow(open.page, 'store-5');
    await row.locator('.cron-human', { hasText: 'description unavailable' }).waitFor();
    await renderSeveralTimes(open.page);
    expect(describeRequests('5 4 * * *')).toHaveLength(1);
    await service.request('DELETE', `/api/jobs/${job.body.id}`);
  });
});
