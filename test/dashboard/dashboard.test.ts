import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { eventually, startTestService, type TestService } from '../support/service';
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

// Functions given to page.evaluate run in the browser. The project compiles without the DOM
// library, so the few page globals they use are declared here (declarations emit no code).
interface PageBox {
  left: number;
  right: number;
  top: number;
  width: number;
  height: number;
}
interface PageControl {
  outerHTML: string;
  getBoundingClientRect(): PageBox;
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  labels: ArrayLike<{ textContent: string | null }> | null;
}
declare const document: {
  body: unknown;
  documentElement: { scrollWidth: number };
  querySelectorAll(selector: string): Iterable<PageControl>;
  querySelector(selector: string): PageControl | null;
  elementFromPoint(x: number, y: number): PageControl | null;
  dispatchEvent(event: unknown): boolean;
};
declare const window: { innerWidth: number; __pwned?: number };
declare const Event: new (type: string) => unknown;
declare function getComputedStyle(element: unknown): { backgroundColor: string };

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

describeInBrowser('dashboard in a browser', () => {
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
  beforeEach(async () => {
    await service.request('POST', '/api/scheduler/resume');
    await service.db.pool.query('DELETE FROM executions');
    await service.db.pool.query('DELETE FROM jobs');
  });
  afterEach(async () => {
    // Whatever the test did, the page must not have thrown, broken its CSP or left the origin.
    const problems = open?.problems ?? [];
    await open?.context.close();
    open = undefined;
    expect(problems).toEqual([]);
  });

  const createJob = async (job: Record<string, unknown>) => {
    const response = await service.request('POST', '/api/jobs', job);
    expect(response.status).toBe(201);
    return response.body as { id: number; name: string };
  };

  /** Runs a job through the API and waits for its execution row. */
  const runToCompletion = async (jobId: number) => {
    await service.request('POST', `/api/jobs/${jobId}/run`);
    return eventually(async () => {
      const list = await service.request('GET', `/api/executions?jobId=${jobId}`);
      // The list holds finished executions only: the run shows once it has ended.
      return list.body[0] as { id: number; status: string } | undefined;
    });
  };

  it('creates a job, runs it, and shows its successful execution with the output', async () => {
    open = await openDashboard(browser, service.url);
    const { page } = open;
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    await page.getByText('No jobs yet').waitFor();

    await page.getByRole('button', { name: 'New job' }).click();
    const dialog = page.getByRole('dialog', { name: 'New job' });
    await dialog.getByLabel('Name').fill('nightly-report');
    await dialog.getByLabel('Schedule (cron)').fill('30 2 * * *');
    await dialog.locator('.cron-valid').filter({ hasText: 'At 02:30 AM' }).waitFor();
    await dialog.getByLabel('Time zone').fill('Europe/Berlin');
    await dialog.getByLabel('Command').fill('echo "report for $CRONDECK_JOB_NAME"; echo done >&2');
    await dialog.getByLabel('Description').fill('Sends the nightly numbers');
    await dialog.getByLabel('Tags').fill('reports, nightly');
    await dialog.getByRole('button', { name: 'Create job' }).click();
    await dialog.waitFor({ state: 'detached' });

    const row = jobRow(page, 'nightly-report');
    await row.waitFor();
    await row.getByText('At 02:30 AM').waitFor();
    await row.getByText('Europe/Berlin').waitFor();
    await row.getByText('never run').waitFor();
    expect(await row.getByRole('switch').isChecked()).toBe(true);
    const saved = (await service.request('GET', '/api/jobs')).body;
    expect(saved).toEqual([
      expect.objectContaining({
        name: 'nightly-report',
        schedule: '30 2 * * *',
        timezone: 'Europe/Berlin',
        tags: ['reports', 'nightly'],
        description: 'Sends the nightly numbers',
        enabled: true,
      }),
    ]);

    await row.getByRole('button', { name: 'Run nightly-report now' }).click();
    await page.locator('.toast').filter({ hasText: 'triggered' }).waitFor();
    // The jobs table learns the outcome by polling, without a reload.
    await row.locator('.badge-success').waitFor({ timeout: 20_000 });
    await page.locator('#stat-successes').filter({ hasText: /^1$/ }).waitFor();
    await screenshot(page, 'dashboard-jobs.png');

    await page.getByRole('link', { name: 'Executions' }).click();
    const execution = page.locator('.executions-table tbody tr[data-status="success"]');
    await execution.waitFor({ timeout: 20_000 });
    await execution.getByText('nightly-report').waitFor();
    expect(await execution.locator('td').nth(4).textContent()).toBe('0');

    await execution.getByRole('link', { name: /^Output of nightly-report/ }).click();
    await page.getByRole('heading', { name: /nightly-report · execution #\d+/ }).waitFor();
    const stdout = page.locator('pre[data-stream="stdout"]');
    await stdout.waitFor();
    expect(await stdout.textContent()).toBe('report for nightly-report\n');
    expect(await page.locator('pre[data-stream="stderr"]').textContent()).toBe('done\n');
    await screenshot(page, 'dashboard-execution.png');

    await page.getByRole('link', { name: '← Back to executions' }).click();
    await page.locator('.executions-table tbody tr').first().waitFor();
  });

  it('shows a run in progress on its job, and refuses a second one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'crondeck-dashboard-'));
    const job = await createJob({
      name: 'slow-export',
      schedule: '0 3 * * *',
      command: `while [ ! -e ${dir}/go ]; do sleep 0.1; done`,
    });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const row = jobRow(page, 'slow-export');
    await row.getByText('never run').waitFor();

    await row.getByRole('button', { name: 'Run slow-export now' }).click();
    await row.locator('.badge-running').waitFor({ timeout: 20_000 });
    await row.getByText(/^since /).waitFor();
    await row.getByRole('button', { name: 'Run slow-export now' }).click();
    await page.locator('.toast').filter({ hasText: 'is already running' }).waitFor();

    // The history shows it too, under "All statuses" and under "running", though the API's
    // default list holds finished executions only.
    const { executionId } = (await service.request('GET', `/api/jobs/${job.id}`)).body.running;
    const historyRow = page.locator(`.executions-table tbody tr[data-execution-id="${executionId}"]`);
    await page.getByRole('link', { name: 'Executions' }).click();
    await historyRow.locator('.badge-running').waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('running');
    await historyRow.locator('.badge-running').waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.getByRole('link', { name: 'Jobs' }).click();

    writeFileSync(path.join(dir, 'go'), '');
    await row.locator('.badge-success').waitFor({ timeout: 20_000 });
    expect(await row.locator('.badge-running').count()).toBe(0);
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body.running).toBeNull();
  });

  it('follows a running execution on its page until it ends, and Refresh reads it again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'crondeck-dashboard-'));
    const job = await createJob({
      name: 'watched-run',
      schedule: '0 3 * * *',
      command: `while [ ! -e ${dir}/go ]; do sleep 0.1; done; echo "finished $(cat ${dir}/go)"; exit 4`,
    });
    const startRun = async () => {
      await service.request('POST', `/api/jobs/${job.id}/run`);
      return eventually(async () => (await service.request('GET', `/api/jobs/${job.id}`)).body.running);
    };
    const fact = (label: string) =>
      page.locator('.fact').filter({ has: page.locator('dt', { hasText: label }) });

    // Opened while it runs: the still-running note only, no empty output panels.
    const first = (await startRun()) as { executionId: number };
    open = await openDashboard(browser, service.url, { hash: `#/executions/${first.executionId}` });
    const { page, requests } = open;
    const badge = page.locator('.detail-head .badge');
    await badge.filter({ hasText: 'running' }).waitFor();
    await page.getByText('Still running: its output is shown once it ends.').waitFor();
    expect(await page.locator('.output-panel').count()).toBe(0);
    expect(await fact('Exit code').locator('dd').textContent()).toBe('—');

    // It ends: the page learns so by polling, as the list does.
    writeFileSync(path.join(dir, 'go'), 'once');
    await badge.filter({ hasText: 'failed' }).waitFor({ timeout: 20_000 });
    expect(await fact('Exit code').locator('dd').textContent()).toBe('4');
    expect(await fact('Finished').locator('time').getAttribute('datetime')).not.toBe('');
    expect(await page.locator('pre[data-stream="stdout"]').textContent()).toBe('finished once\n');
    expect(await page.locator('.running-note').count()).toBe(0);

    // A hidden tab polls nothing: the Refresh button alone fetches a run that has ended since.
    rmSync(path.join(dir, 'go'));
    const second = (await startRun()) as { executionId: number };
    await page.goto(`${service.url}/#/executions/${second.executionId}`);
    await badge.filter({ hasText: 'running' }).waitFor();
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    writeFileSync(path.join(dir, 'go'), 'twice');
    await eventually(async () => (await service.request('GET', `/api/jobs/${job.id}`)).body.running === null);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await badge.filter({ hasText: 'failed' }).waitFor();
    expect(await page.locator('pre[data-stream="stdout"]').textContent()).toBe('finished twice\n');

    // An ended run is read once, but Refresh reads it again (a reason may come after its end).
    const reads = () =>
      requests.filter((line) => line === `GET /api/executions/${second.executionId}`).length;
    const before = reads();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await eventually(async () => reads() > before);
  });

  it('writes times in English in the user’s own time zone, whatever the browser’s language', async () => {
    // A fire time 40 days ahead: "next month", which the short style wrote "next mo.".
    const later = new Date(Date.now() + 40 * 24 * 3600 * 1000);
    const monthly = await createJob({
      name: 'far-off',
      schedule: `0 12 ${later.getUTCDate()} ${later.getUTCMonth() + 1} *`,
      timezone: 'UTC',
      command: 'true',
    });
    await createJob({ name: 'soon', schedule: '*/5 * * * *', command: 'true' });
    const zone = 'Asia/Tokyo';
    open = await openDashboard(browser, service.url, { locale: 'de-DE', timezoneId: zone });
    const { page } = open;
    const english = (options: Intl.DateTimeFormatOptions, iso: string) =>
      new Intl.DateTimeFormat('en-US', { timeZone: zone, ...options }).format(new Date(iso));
    const { nextRun } = (await service.request('GET', `/api/jobs/${monthly.id}`)).body as { nextRun: string };

    // The column says whose time it is in: the schedules beside it are in each job's zone.
    await page.getByRole('columnheader', { name: 'Next run (your time)' }).waitFor();
    const row = jobRow(page, 'far-off');
    await row
      .locator('time.when')
      .filter({ hasText: /^next month$/ })
      .waitFor();
    expect(await row.locator('time.when').getAttribute('title')).toBe(
      english(
        {
          year: 'numeric',
          month: 'short',
          day: 'numeric',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
        },
        nextRun,
      ),
    );
    const sameYear =
      english({ year: 'numeric' }, nextRun) === english({ year: 'numeric' }, new Date().toISOString());
    expect(await row.locator('time.when + div').textContent()).toBe(
      english(
        sameYear
          ? { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
          : { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
        nextRun,
      ),
    );
    expect(await jobRow(page, 'soon').locator('time.when').textContent()).toMatch(
      /^(in \d+ (seconds?|minutes?)|now)$/,
    );
    await page
      .locator('#updated')
      .filter({ hasText: /^Updated \d\d:\d\d:\d\d (AM|PM)$/ })
      .waitFor();

    await row.getByRole('link', { name: 'far-off', exact: true }).click();
    await page.getByText(/· Next run next month \(.+ your time\)\.$/).waitFor();
  });

  it('checks the cron expression live and names what is wrong', async () => {
    open = await openDashboard(browser, service.url);
    const { page } = open;
    await page.getByRole('button', { name: 'New job' }).click();
    const dialog = page.getByRole('dialog', { name: 'New job' });
    const schedule = dialog.getByLabel('Schedule (cron)');
    await schedule.fill('60 * * * *');
    await dialog.getByText('minute value 60 is out of range 0-59').waitFor();
    expect(await schedule.getAttribute('aria-invalid')).toBe('true');
    await schedule.fill('*/15 9-17 * * 1-5');
    await dialog.locator('.cron-valid').filter({ hasText: 'Every 15 minutes' }).waitFor();
    expect(await schedule.getAttribute('aria-invalid')).toBeNull();
    await screenshot(page, 'dashboard-job-form.png', false);

    // An invalid schedule is not sent; the focus goes to it.
    await dialog.getByLabel('Name').fill('bad-schedule');
    await dialog.getByLabel('Command').fill('true');
    await schedule.fill('* * *');
    await dialog.getByRole('button', { name: 'Create job' }).click();
    await dialog.getByText(/must have 5 fields/).waitFor();
    expect(await hasFocus(schedule)).toBe(true);
    expect((await service.request('GET', '/api/jobs')).body).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('edits a job and keeps what the form does not show', async () => {
    const job = await createJob({ name: 'edit-me', schedule: '0 * * * *', command: 'true', enabled: false });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    await jobRow(page, 'edit-me').getByRole('button', { name: 'Edit edit-me' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit job edit-me' });
    await dialog.locator('.cron-valid').waitFor();
    await dialog.getByLabel('Schedule (cron)').fill('5 4 * * 0');
    await dialog.getByLabel('Timeout (seconds)').fill('120');
    await dialog.getByLabel('Retries').fill('2');
    await dialog.getByLabel('Retry delay (seconds)').fill('30');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await jobRow(page, 'edit-me').getByText('5 4 * * 0').waitFor();
    const saved = (await service.request('GET', `/api/jobs/${job.id}`)).body;
    expect(saved).toMatchObject({
      schedule: '5 4 * * 0',
      timeout: 120,
      retry: { maxAttempts: 2, baseDelay: 30 },
      enabled: false,
    });
  });

  it('turns a job off and on with its switch and deletes it after confirmation', async () => {
    const job = await createJob({ name: 'switchable', schedule: '*/5 * * * *', command: 'true' });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const row = jobRow(page, 'switchable');
    const toggle = row.getByRole('switch', { name: 'Enabled: switchable' });
    await toggle.waitFor();

    await toggle.click();
    await row.getByText('disabled', { exact: true }).waitFor();
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body.enabled).toBe(false);
    await page.locator('#stat-enabled').filter({ hasText: /^0$/ }).waitFor();

    // By keyboard too: focus the switch and press space.
    await toggle.focus();
    await page.keyboard.press('Space');
    await eventually(async () => (await service.request('GET', `/api/jobs/${job.id}`)).body.enabled === true);
    expect(await toggle.isChecked()).toBe(true);

    // Cancelling the confirmation keeps the job.
    await row.getByRole('button', { name: 'Delete switchable' }).click();
    let confirm = page.getByRole('dialog', { name: 'Delete job?' });
    await confirm.getByText('Delete “switchable”?').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect((await service.request('GET', `/api/jobs/${job.id}`)).status).toBe(200);

    await row.getByRole('button', { name: 'Delete switchable' }).click();
    confirm = page.getByRole('dialog', { name: 'Delete job?' });
    await confirm.getByRole('button', { name: 'Delete job' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await service.request('GET', `/api/jobs/${job.id}`)).status).toBe(404);
    await page.getByText('No jobs yet').waitFor();
  });

  it('keeps the keyboard focus on a job’s switch and Run now through the re-render', async () => {
    await createJob({ name: 'focus-a', schedule: '*/5 * * * *', command: 'true' });
    const job = await createJob({ name: 'focus-b', schedule: '*/5 * * * *', command: 'echo hi' });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const row = jobRow(page, 'focus-b');
    const toggle = row.getByRole('switch', { name: 'Enabled: focus-b' });
    await toggle.waitFor();

    await toggle.focus();
    await page.keyboard.press('Space');
    await row.getByText('disabled', { exact: true }).waitFor();
    await page.locator('.toast').filter({ hasText: 'focus-b disabled.' }).waitFor();
    await eventually(async () => !(await toggle.isDisabled()));
    await eventually(() => hasFocus(toggle));
    // Still there after the next refreshes re-render the row, and Space works again.
    await page.keyboard.press('Space');
    await eventually(async () => (await service.request('GET', `/api/jobs/${job.id}`)).body.enabled === true);
    await row.getByText('disabled', { exact: true }).waitFor({ state: 'detached' });
    await eventually(() => hasFocus(toggle));

    const run = row.getByRole('button', { name: 'Run focus-b now' });
    await run.focus();
    await page.keyboard.press('Enter');
    await page.locator('.toast').filter({ hasText: 'triggered' }).waitFor();
    await row.locator('.badge-success').waitFor({ timeout: 20_000 });
    await eventually(() => hasFocus(run));
  });

  it('says there is no such job on the page of a job that does not exist, or no longer does', async () => {
    const job = await createJob({ name: 'short-lived', schedule: '@daily', command: 'true' });
    open = await openDashboard(browser, service.url, { hash: '#/jobs/9999' });
    const { page } = open;
    const view = page.locator('#view-job');
    const controls = async () => ({
      runNow: await view.getByRole('button', { name: 'Run now' }).count(),
      backfill: await view.getByRole('button', { name: 'Backfill…' }).count(),
      alerts: await view.getByRole('button', { name: 'Edit alerts' }).count(),
      neverRun: await view.getByText('never run').filter({ visible: true }).count(),
      chart: await view.locator('svg.duration-chart').filter({ visible: true }).count(),
    });
    const none = { runNow: 0, backfill: 0, alerts: 0, neverRun: 0, chart: 0 };

    await view.getByText('No such job').waitFor();
    await view.getByText('There is no job 9999').waitFor();
    expect(await controls()).toEqual(none);
    await page.getByRole('heading', { name: 'Job 9999', level: 1 }).waitFor();

    // A job that exists has them all; deleted while its page is open, they go.
    await page.goto(`${service.url}/#/jobs/${job.id}`);
    await view.getByRole('button', { name: 'Run now' }).waitFor();
    expect(await controls()).toEqual({ runNow: 1, backfill: 1, alerts: 1, neverRun: 1, chart: 1 });
    expect(await view.getByText('No such job').filter({ visible: true }).count()).toBe(0);
    expect((await service.request('DELETE', `/api/jobs/${job.id}`)).status).toBe(200);
    await view.getByText('No such job').waitFor({ timeout: 15_000 });
    expect(await controls()).toEqual(none);
  });

  it('words events, limits and consequences for people', async () => {
    await createJob({ name: 'worded', schedule: '@daily', command: 'true' });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const row = jobRow(page, 'worded');

    // An alert event is named in words, as the policy fields name it, not by its API name.
    await row.getByRole('button', { name: 'Alerts worded' }).click();
    const alerts = page.getByRole('dialog', { name: 'Alerts for worded' });
    await alerts.getByRole('button', { name: 'Add webhook' }).click();
    const events = alerts.locator('fieldset', { hasText: 'Webhook 1' });
    await events.getByLabel('too fast', { exact: true }).waitFor();
    expect(await alerts.getByText('tooFast').count()).toBe(0);
    await alerts.getByRole('button', { name: 'Cancel' }).click();
    await alerts.waitFor({ state: 'detached' });

    // An out-of-range timeout: the message says what is allowed (src/domain/job.ts: 0 to 86400).
    await row.getByRole('button', { name: 'Edit worded' }).click();
    const form = page.getByRole('dialog', { name: 'Edit job worded' });
    await form.locator('.cron-valid').waitFor();
    await form.getByLabel('Timeout (seconds)').fill('999999');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Enter a timeout in whole seconds, from 0 to 86400 (0 = no timeout).').waitFor();
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });

    // Deleting says what goes with the job.
    await row.getByRole('button', { name: 'Delete worded' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete job?' });
    await confirm.getByText(/its run history, slots and alert settings are deleted with it/).waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
  });

  it('pauses the scheduler until a time in the local time zone and resumes it', async () => {
    open = await openDashboard(browser, service.url, { timezoneId: 'America/New_York' });
    const { page } = open;
    await page.getByText('Scheduler running').waitFor();

    await page.getByRole('button', { name: 'Pause…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Pause the scheduler' });
    await dialog.getByLabel('Until a time').check();
    const until = dialog.getByLabel(/Resume at \(your time, America\/New_York\)/);
    await until.fill('2099-01-15T09:30');
    await dialog.getByRole('button', { name: 'Pause scheduler' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page
      .locator('#scheduler-state')
      .filter({ hasText: /^Paused until/ })
      .waitFor();

    // 09:30 in New York in January (EST, UTC-5) is 14:30 UTC.
    const status = (await service.request('GET', '/api/scheduler/status')).body;
    expect(status).toEqual({ paused: true, until: '2099-01-15T14:30:00.000Z' });

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Scheduler running').waitFor();
    expect((await service.request('GET', '/api/scheduler/status')).body.paused).toBe(false);

    // Paused until further notice, then noticed by polling when resumed elsewhere.
    await page.getByRole('button', { name: 'Pause…' }).click();
    await page
      .getByRole('dialog', { name: 'Pause the scheduler' })
      .getByRole('button', { name: 'Pause scheduler' })
      .click();
    await page
      .locator('#scheduler-state')
      .filter({ hasText: /^Paused$/ })
      .waitFor();
    expect((await service.request('GET', '/api/scheduler/status')).body).toEqual({
      paused: true,
      until: null,
    });
    await service.request('POST', '/api/scheduler/resume');
    await page.getByText('Scheduler running').waitFor({ timeout: 15_000 });
  });

  it('says in the jobs list that a job will not fire while the scheduler is paused', async () => {
    await createJob({ name: 'every-five', schedule: '*/5 * * * *', command: 'true' });
    const later = new Date(Date.now() + 10 * 24 * 3600 * 1000);
    const schedule = `0 12 ${later.getUTCDate()} ${later.getUTCMonth() + 1} *`;
    await createJob({ name: 'later', schedule, timezone: 'UTC', command: 'true' });
    const until = new Date(Date.now() + 3600 * 1000).toISOString();
    expect((await service.request('POST', '/api/scheduler/pause', { until })).status).toBe(200);
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const next = (name: string) => jobRow(page, name).locator('td[data-label^="Next run"]');

    // Its next run falls in the pause: "paused", the time it would have had struck through.
    await next('every-five')
      .locator('time.when')
      .filter({ hasText: /^paused$/ })
      .waitFor();
    expect(await next('every-five').locator('time.when').getAttribute('title')).toMatch(
      /^The scheduler is paused until .+: it does not fire at .+\.$/,
    );
    expect(await next('every-five').locator('.paused-time').textContent()).not.toBe('');
    // After the pause has ended: as usual.
    await next('later')
      .locator('time.when')
      .filter({ hasText: /^in \d+ (days|weeks|months)$|^next (week|month|year)$|^tomorrow$/ })
      .waitFor();
    expect(await next('later').locator('.paused-time').count()).toBe(0);

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Scheduler running').waitFor();
    await next('every-five')
      .locator('time.when')
      .filter({ hasText: /^in \d+ (seconds?|minutes?)$|^now$/ })
      .waitFor();
    expect(await next('every-five').locator('.paused-time').count()).toBe(0);
  });

  it('shows markup in names, commands and output as text, never as HTML', async () => {
    const payload = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b>bold</b>';
    const job = await createJob({
      name: 'hostile',
      schedule: '@daily',
      command: `printf '%s\\n' '${payload}'; printf '%s' '<i>err</i>' >&2; exit 3`,
      description: '<img src=x onerror="window.__pwned = 3">',
      tags: ['<b>tag</b>'],
    });
    const execution = await runToCompletion(job.id);
    expect(execution.status).toBe('failed');

    open = await openDashboard(browser, service.url);
    const { page } = open;
    const row = jobRow(page, 'hostile');
    await row.getByText('<img src=x onerror="window.__pwned = 3">').waitFor();
    await row.getByText('<b>tag</b>').waitFor();
    await row.locator('.badge-failed').waitFor();
    expect(await row.locator('img, b, script').count()).toBe(0);

    await page.goto(`${service.url}/#/executions/${execution.id}`);
    const stdout = page.locator('pre[data-stream="stdout"]');
    await stdout.waitFor();
    expect(await stdout.textContent()).toBe(`${payload}\n`);
    expect(await page.locator('pre[data-stream="stderr"]').textContent()).toBe('<i>err</i>');
    expect(await page.locator('main img, main script, main b, main i').count()).toBe(0);
    // A failed run shows stderr first, and its non-zero exit code.
    expect(await page.locator('.output-panel h2').allTextContents()).toEqual(['stderr', 'stdout']);
    await page.locator('.fact').filter({ hasText: 'Exit code' }).getByText('3').waitFor();
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  });

  it('filters the history by job and status and keeps large outputs readable', async () => {
    const ok = await createJob({ name: 'ok-job', schedule: '@daily', command: 'seq 1 3000' });
    const bad = await createJob({ name: 'bad-job', schedule: '@daily', command: 'echo broken >&2; exit 1' });
    await runToCompletion(ok.id);
    const failed = await runToCompletion(bad.id);

    open = await openDashboard(browser, service.url, { hash: '#/executions' });
    const { page } = open;
    const rows = page.locator('.executions-table tbody tr');
    await eventually(async () => (await rows.count()) === 2);

    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await eventually(async () => (await rows.count()) === 1);
    await rows.first().getByText('bad-job').waitFor();
    expect(page.url()).toContain('#/executions?status=failed');

    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.getByLabel('Job', { exact: true }).selectOption({ label: 'ok-job' });
    await eventually(async () => (await rows.count()) === 1);
    await rows.first().getByText('ok-job').waitFor();
    expect(page.url()).toContain(`jobId=${ok.id}`);

    // 3000 lines: a scrolling block with a way to the end.
    await rows.first().click();
    const stdout = page.locator('pre[data-stream="stdout"]');
    await stdout.waitFor();
    await page.getByText('3,000 lines').or(page.getByText('3000 lines')).waitFor();
    const box = await stdout.evaluate((element) => ({
      scrollHeight: element.scrollHeight,
      clientHeight: element.clientHeight,
    }));
    expect(box.scrollHeight).toBeGreaterThan(box.clientHeight);
    await page.getByRole('button', { name: 'Jump to the end of stdout' }).click();
    expect(await stdout.evaluate((element) => element.scrollTop > 0)).toBe(true);

    // Back keeps the filter; the job filter of the failed run from the jobs table.
    await page.getByRole('link', { name: '← Back to executions' }).click();
    expect(page.url()).toContain(`jobId=${ok.id}`);
    await page.getByRole('link', { name: 'Jobs' }).click();
    await jobRow(page, 'bad-job').getByRole('link', { name: 'History of bad-job' }).click();
    await page.locator(`.executions-table tbody tr[data-execution-id="${failed.id}"]`).waitFor();
  });

  it('edits alert destinations against the alerts contract', async () => {
    const job = await createJob({ name: 'alerting', schedule: '@daily', command: 'true' });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    // The endpoint is built separately: the page is tested against its contract here.
    const saved: unknown[] = [];
    let deleted = 0;
    await page.route(`**/api/jobs/${job.id}/alerts`, async (route) => {
      const method = route.request().method();
      if (method === 'GET') {
        await route.fulfill({
          json: {
            webhooks: [{ url: 'https://hooks.example.com/a', events: ['failed', 'timeout'] }],
            emails: [],
          },
        });
      } else if (method === 'PUT') {
        saved.push(route.request().postDataJSON());
        await route.fulfill({ json: saved.at(-1) });
      } else {
        deleted += 1;
        await route.fulfill({ json: { ok: true } });
      }
    });

    await jobRow(page, 'alerting').getByRole('button', { name: 'Alerts alerting' }).click();
    const dialog = page.getByRole('dialog', { name: 'Alerts for alerting' });
    const url = dialog.getByLabel('URL');
    await url.waitFor();
    expect(await url.inputValue()).toBe('https://hooks.example.com/a');

    await dialog.getByRole('button', { name: 'Add e-mail' }).click();
    const recipients = dialog.getByLabel('Recipients (comma-separated)');
    await recipients.fill('not-an-address');
    await dialog.getByRole('button', { name: 'Save alerts' }).click();
    await dialog.getByText('Each recipient must be an e-mail address').waitFor();
    expect(saved).toHaveLength(0);

    await recipients.fill('ops@example.com, oncall@example.com');
    const emailEvents = dialog.locator('fieldset', { hasText: 'E-mail 1' });
    await emailEvents.getByLabel('success').check();
    await emailEvents.getByLabel('timeout').uncheck();
    await screenshot(page, 'dashboard-alerts.png', false);
    await dialog.getByRole('button', { name: 'Save alerts' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(saved).toEqual([
      {
        webhooks: [{ url: 'https://hooks.example.com/a', events: ['failed', 'timeout'] }],
        emails: [{ to: ['ops@example.com', 'oncall@example.com'], events: ['success', 'failed'] }],
      },
    ]);

    await jobRow(page, 'alerting').getByRole('button', { name: 'Alerts alerting' }).click();
    await page
      .getByRole('dialog', { name: 'Alerts for alerting' })
      .getByRole('button', { name: 'Remove all' })
      .click();
    await page
      .getByRole('dialog', { name: 'Remove all alerts?' })
      .getByRole('button', { name: 'Remove all' })
      .click();
    await eventually(async () => deleted === 1);
  });

  it('saves alerts through the real alerts endpoint', async () => {
    const job = await createJob({ name: 'real-alerts', schedule: '@daily', command: 'true' });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    await jobRow(page, 'real-alerts').getByRole('button', { name: 'Alerts real-alerts' }).click();
    let dialog = page.getByRole('dialog', { name: 'Alerts for real-alerts' });
    await dialog.getByText('No webhooks.').waitFor();
    await dialog.getByRole('button', { name: 'Add webhook' }).click();
    await dialog.getByLabel('URL').fill('http://127.0.0.1:9/hook');
    await dialog.getByRole('button', { name: 'Save alerts' }).click();
    await dialog.waitFor({ state: 'detached' });
    const stored = await service.request('GET', `/api/jobs/${job.id}/alerts`);
    expect(stored.body).toMatchObject({
      webhooks: [{ url: 'http://127.0.0.1:9/hook', events: ['failed', 'timeout'] }],
    });

    await jobRow(page, 'real-alerts').getByRole('button', { name: 'Alerts real-alerts' }).click();
    dialog = page.getByRole('dialog', { name: 'Alerts for real-alerts' });
    expect(await dialog.getByLabel('URL').inputValue()).toBe('http://127.0.0.1:9/hook');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('keeps a webhook’s format and signing when it saves alerts', async () => {
    const job = await createJob({ name: 'signed-alerts', schedule: '@daily', command: 'true' });
    const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const webhooks = [
      { url: 'http://127.0.0.1:9/signed', events: ['failed'], secret },
      { url: 'http://127.0.0.1:9/teams', events: ['failed'], format: 'teams' },
    ];
    expect((await service.request('PUT', `/api/jobs/${job.id}/alerts`, { webhooks })).status).toBe(200);
    open = await openDashboard(browser, service.url);
    const { page } = open;
    await jobRow(page, 'signed-alerts').getByRole('button', { name: 'Alerts signed-alerts' }).click();
    const dialog = page.getByRole('dialog', { name: 'Alerts for signed-alerts' });
    await dialog.locator('fieldset', { hasText: 'Webhook 2' }).getByLabel('success').check();
    await dialog.getByRole('button', { name: 'Save alerts' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await service.request('GET', `/api/jobs/${job.id}/alerts`)).body.webhooks).toEqual([
      { url: 'http://127.0.0.1:9/signed', events: ['failed'], signed: true },
      { url: 'http://127.0.0.1:9/teams', events: ['success', 'failed'], format: 'teams' },
    ]);
  });

  it('says so when the service has no alerts endpoint (404)', async () => {
    const job = await createJob({ name: 'no-alerts', schedule: '@daily', command: 'true' });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    await page.route(`**/api/jobs/${job.id}/alerts`, (route) =>
      route.fulfill({ status: 404, json: { error: `no such endpoint: GET /api/jobs/${job.id}/alerts` } }),
    );
    await jobRow(page, 'no-alerts').getByRole('button', { name: 'Alerts no-alerts' }).click();
    const dialog = page.getByRole('dialog', { name: 'Alerts for no-alerts' });
    await dialog.getByText('Alert settings are not available on this service yet').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('updates itself while open and stops polling while the tab is hidden', async () => {
    open = await openDashboard(browser, service.url);
    const { page, requests } = open;
    await page.getByText('No jobs yet').waitFor();

    // A job created elsewhere appears without a reload.
    await createJob({ name: 'from-elsewhere', schedule: '@hourly', command: 'true' });
    await jobRow(page, 'from-elsewhere').waitFor({ timeout: 15_000 });

    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    // A refresh already under way may still finish its requests (descriptions follow the job
    // list): wait for a quiet second, however slow the machine, then expect a whole poll interval
    // and more of silence.
    for (let seen = -1, waited = 0; seen !== requests.length && waited < 10_000; waited += 1000) {
      seen = requests.length;
      await page.waitForTimeout(1000);
    }
    const before = requests.length;
    await page.waitForTimeout(6_500);
    expect(requests.slice(before)).toEqual([]);

    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await eventually(async () => requests.slice(before).includes('GET /api/jobs'), 3_000);
  });

  it('works with a keyboard and labels every control', async () => {
    await createJob({ name: 'labelled', schedule: '@daily', command: 'true' });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    await jobRow(page, 'labelled').waitFor();

    const newJob = page.getByRole('button', { name: 'New job' });
    await newJob.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New job' });
    await dialog.waitFor();
    expect(await hasFocus(dialog.getByLabel('Name'))).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await hasFocus(newJob)).toBe(true);

    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea, button')]
        .filter((control) => {
          const name =
            control.getAttribute('aria-label') ||
            Array.from(control.labels ?? [], (label) => label.textContent).join('') ||
            (control.tagName === 'BUTTON' ? control.textContent : '');
          return !name?.trim();
        })
        .map((element) => element.outerHTML.slice(0, 80)),
    );
    expect(unlabelled).toEqual([]);
  });

  it('fits a phone screen and follows the dark colour scheme', async () => {
    const job = await createJob({
      name: 'phone-job',
      schedule: '0 6 * * 1-5',
      command: 'echo good morning',
      description: 'Weekday wake-up',
    });
    await runToCompletion(job.id);
    open = await openDashboard(browser, service.url, {
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
      isMobile: true,
      hasTouch: true,
    });
    const { page } = open;
    await jobRow(page, 'phone-job').locator('.badge-success').waitFor();
    await jobRow(page, 'phone-job').getByText('At 06:00 AM, Monday through Friday').waitFor();
    // The screen's width: a phone's browser zooms out to a wider page, and window.innerWidth with it.
    const layout = await page.evaluate(() => ({
      overflow: document.documentElement.scrollWidth - 390,
      background: getComputedStyle(document.body).backgroundColor,
    }));
    expect(layout.overflow).toBeLessThanOrEqual(0);
    expect(luminance(layout.background)).toBeLessThan(0.1);
    await screenshot(page, 'dashboard-phone-dark.png');

    await page.emulateMedia({ colorScheme: 'light' });
    const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(luminance(light)).toBeGreaterThan(0.8);
  });

  it('fits a phone screen while the scheduler is paused, its Resume button in reach', async () => {
    await createJob({ name: 'paused-phone', schedule: '*/5 * * * *', command: 'true' });
    const until = new Date(Date.now() + 5 * 3600 * 1000).toISOString();
    expect((await service.request('POST', '/api/scheduler/pause', { until })).status).toBe(200);
    open = await openDashboard(browser, service.url, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const { page } = open;
    await jobRow(page, 'paused-phone').waitFor();
    const resume = page.getByRole('button', { name: 'Resume' });
    await resume.waitFor();
    await page.getByText(/^Paused until /).waitFor();
    // The screen's width, not window.innerWidth: a phone's browser zooms out to show a page wider
    // than the screen, and then innerWidth grows with it.
    const layout = await page.evaluate((screenWidth) => {
      const inside = (selector: string) => {
        const box = document.querySelector(selector)!.getBoundingClientRect();
        return box.left >= 0 && box.right <= screenWidth;
      };
      const button = document.querySelector('#scheduler button')!.getBoundingClientRect();
      const hit = document.elementFromPoint(button.left + button.width / 2, button.top + button.height / 2);
      return {
        overflow: document.documentElement.scrollWidth - screenWidth,
        stateInside: inside('#scheduler-state'),
        buttonInside: inside('#scheduler button'),
        // Nothing covers the button: the long state text neither runs over nor under it.
        buttonOnTop: hit?.textContent === 'Resume',
      };
    }, 390);
    await screenshot(page, 'dashboard-phone-paused.png', false);
    expect(layout).toEqual({ overflow: 0, stateInside: true, buttonInside: true, buttonOnTop: true });
    await resume.click();
    await page.getByText('Scheduler running').waitFor();
  });

  it('renders a realistic overview for the README screenshot', async () => {
    const jobs = [
      {
        name: 'db-backup',
        schedule: '0 2 * * *',
        command: 'pg_dump app | gzip > /backups/app.sql.gz',
        tags: ['backup'],
        description: 'Nightly dump of the app database',
      },
      { name: 'cache-warmup', schedule: '*/15 * * * *', command: 'echo warmed 42 pages', tags: ['web'] },
      {
        name: 'invoice-sync',
        schedule: '30 8 * * 1-5',
        command: 'echo "upstream returned 502" >&2; exit 2',
        timezone: 'Europe/Berlin',
        tags: ['billing'],
      },
      {
        name: 'weekly-report',
        schedule: '0 9 * * 1',
        command: 'echo report sent',
        timezone: 'America/New_York',
        enabled: false,
      },
    ];
    const created = [];
    for (const job of jobs) created.push(await createJob(job));
    await runToCompletion(created[1]!.id);
    await runToCompletion(created[2]!.id);
    await runToCompletion(created[3]!.id);

    open = await openDashboard(browser, service.url);
    const { page } = open;
    await jobRow(page, 'invoice-sync').locator('.badge-failed').waitFor();
    await jobRow(page, 'weekly-report').getByText('At 09:00 AM, only on Monday').waitFor();
    await page.locator('#stat-failures').filter({ hasText: /^1$/ }).waitFor();
    const file = await screenshot(page, 'dashboard-overview.png', false);
    if (process.env.UPDATE_DOCS_SCREENSHOT) {
      const docs = path.join(__dirname, '..', '..', 'docs');
      mkdirSync(docs, { recursive: true });
      copyFileSync(file, path.join(docs, 'dashboard.png'));
    }
  });

  // Last on purpose: it sends a request that fails while the page polls, and the service must
  // keep answering afterwards (a failure here would otherwise spill into the tests after it).
  it('puts a refusal of the service on the field it names, and the page keeps working', async () => {
    await createJob({ name: 'taken', schedule: '@daily', command: 'true' });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    await jobRow(page, 'taken').waitFor();
    await page.getByRole('button', { name: 'New job' }).click();
    const dialog = page.getByRole('dialog', { name: 'New job' });
    await dialog.getByLabel('Name').fill('taken');
    await dialog.getByLabel('Schedule (cron)').fill('@hourly');
    await dialog.getByLabel('Command').fill('true');
    await dialog.locator('.cron-valid').waitFor();
    await dialog.getByRole('button', { name: 'Create job' }).click();
    await dialog.getByText('a job named "taken" already exists').waitFor();
    expect(await dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Name').fill('taken-2');
    await dialog.getByRole('button', { name: 'Create job' }).click();
    await dialog.waitFor({ state: 'detached' });
    await jobRow(page, 'taken-2').waitFor();
    expect((await service.request('GET', '/api/jobs')).status).toBe(200);
  });
});

/** Relative luminance (0 black … 1 white) of a CSS `rgb(r, g, b)` colour. */
function luminance(color: string): number {
  const [r, g, b] = (color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number) as [number, number, number];
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}
