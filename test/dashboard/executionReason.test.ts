import type { Browser } from 'playwright-core';
import { eventually, startTestService, type TestService } from '../support/service';
import { BROWSER_TEST_TIMEOUT_MS, type DashboardPage, launchBrowser, openDashboard } from './browser';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/** The execution page says why a run failed, as text, when there is something to say. */
describe('execution reason in the dashboard', () => {
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

  const runToCompletion = async (command: string, name: string) => {
    const job = (await service.request('POST', '/api/jobs', { name, schedule: '@daily', command })).body;
    await service.request('POST', `/api/jobs/${job.id}/run`);
    return eventually(async () => {
      const list = await service.request('GET', `/api/executions?jobId=${job.id}`);
      return list.body[0] as { id: number } | undefined;
    });
  };

  it('shows the signal that killed a run, and no reason for a plain failure', async () => {
    const killed = await runToCompletion('kill -KILL $$', 'killed');
    const plain = await runToCompletion('exit 3', 'plain');

    open = await openDashboard(browser, service.url, { hash: `#/executions/${killed.id}` });
    const { page } = open;
    const reason = page.locator('.fact-reason');
    await reason.waitFor();
    expect(await reason.locator('dt').textContent()).toBe('Reason');
    expect(await reason.locator('dd').textContent()).toBe(
      'SIGKILL the command was killed by SIGKILL (exit code 137)',
    );

    await page.goto(`${service.url}/#/executions/${plain.id}`);
    await page.locator('.fact').filter({ hasText: 'Exit code' }).getByText('3').waitFor();
    expect(await page.locator('.fact-reason').count()).toBe(0);
  });
});
