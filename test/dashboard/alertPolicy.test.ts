import type { Browser } from 'playwright-core';
import { Receiver } from '../alerts/support/receiver';
import { ScriptedRuns } from '../alerts/support/scriptedRuns';
import { ManualClock } from '../support/clock';
import { eventually, startTestService, type TestService } from '../support/service';
import {
  BROWSER_TEST_TIMEOUT_MS,
  type DashboardPage,
  jobRow,
  launchBrowser,
  openDashboard,
  screenshot,
} from './browser';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The alert policy in the dashboard, in a real browser against the real service. */
describe('alert policy in the dashboard', () => {
  let service: TestService;
  let browser: Browser;
  let receiver: Receiver;
  let open: DashboardPage | undefined;
  const runs = new ScriptedRuns();
  const clock = new ManualClock('2026-03-10T12:00:00Z');

  beforeAll(async () => {
    receiver = await Receiver.start();
    [service, browser] = await Promise.all([
      startTestService({ clock, local: { execute: runs.run }, alerting: { pollIntervalMs: 20 } }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await receiver?.close();
  });
  afterEach(async () => {
    const problems = open?.problems ?? [];
    await open?.context.close();
    open = undefined;
    expect(problems).toEqual([]);
  });

  const createJob = async (name: string, alerts?: Obj) => {
    const created = await service.request('POST', '/api/jobs', {
      name,
      schedule: '0 3 * * *',
      command: 'true',
    });
    expect(created.status).toBe(201);
    if (alerts)
      expect((await service.request('PUT', `/api/jobs/${created.body.id}/alerts`, alerts)).status).toBe(200);
    return created.body.id as number;
  };
  const runOnce = async (id: number, name: string, outcome: Parameters<ScriptedRuns['next']>[1]) => {
    runs.next(name, outcome);
    expect((await service.request('POST', `/api/jobs/${id}/run`)).status).toBe(200);
    await service.local.idle();
    await eventually(async () => {
      const { rows } = await service.db.pool.query(
        `SELECT count(*)::int AS n FROM alert_outbox WHERE state = 'pending'`,
      );
      return rows[0].n === 0;
    });
  };

  it('edits the policy in the alert editor, and puts a refusal on the field it names', async () => {
    const id = await createJob('policy-edit');
    open = await openDashboard(browser, service.url);
    const { page } = open;
    await jobRow(page, 'policy-edit').getByRole('button', { name: 'Alerts policy-edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Alerts for policy-edit' });
    await dialog.getByRole('button', { name: 'Add webhook' }).click();
    await dialog.getByLabel('URL').fill('https://hooks.example.com/ops');
    await dialog.locator('fieldset', { hasText: 'Webhook 1' }).getByLabel('recovered').check();
    await dialog.getByLabel('Alert from the Nth failed run in a row').fill('3');
    await dialog.getByLabel('Suspend after N failed runs in a row').fill('5');
    await dialog.getByLabel('Send “recovered” on the first success after an alerted failure').check();
    await dialog.getByRole('button', { name: 'Add window' }).click();
    await dialog.getByLabel('Opens at (cron)').fill('30 23 * * *');
    await dialog.getByLabel('Lasts (seconds)').fill('7200');
    await dialog.getByLabel('Time zone').fill('Mars/Olympus');
    await dialog.getByRole('button', { name: 'Save alerts' }).click();
    const zone = dialog.getByLabel('Time zone');
    await dialog.getByText('must be an IANA time zone name such as Europe/Berlin or UTC').waitFor();
    expect(await zone.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'dashboard-alert-policy.png', false);

    await zone.fill('Europe/Berlin');
    await dialog.getByRole('button', { name: 'Save alerts' }).click();
    await dialog.waitFor({ state: 'detached' });
    const policy = {
      afterConsecutiveFailures: 3,
      suspendAfterFailures: 5,
      recovery: true,
      maintenance: [{ schedule: '30 23 * * *', durationSeconds: 7200, timezone: 'Europe/Berlin' }],
    };
    expect((await service.request('GET', `/api/jobs/${id}/alerts`)).body).toEqual({
      webhooks: [{ url: 'https://hooks.example.com/ops', events: ['failed', 'timeout', 'recovered'] }],
      emails: [],
      policy,
    });

    // Opened again it shows what is stored; emptied, the policy goes.
    await jobRow(page, 'policy-edit').getByRole('button', { name: 'Alerts policy-edit' }).click();
    const again = page.getByRole('dialog', { name: 'Alerts for policy-edit' });
    expect(await again.getByLabel('Alert from the Nth failed run in a row').inputValue()).toBe('3');
    expect(await again.getByLabel('Opens at (cron)').inputValue()).toBe('30 23 * * *');
    await again.getByLabel('Alert from the Nth failed run in a row').fill('');
    await again.getByLabel('Suspend after N failed runs in a row').fill('');
    await again.getByLabel('Send “recovered” on the first success after an alerted failure').uncheck();
    await again.getByRole('button', { name: 'Remove window' }).click();
    await again.getByRole('button', { name: 'Save alerts' }).click();
    await again.waitFor({ state: 'detached' });
    expect((await service.request('GET', `/api/jobs/${id}/alerts`)).body).not.toHaveProperty('policy');
  });

  it('charts a job’s run durations against its envelope and shows its muted and suppressed alerts', async () => {
    const id = await createJob('charted', {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['failed', 'timeout', 'tooFast'] }],
      policy: {
        afterConsecutiveFailures: 2,
        minDurationSeconds: 3,
        maxDurationSeconds: 10,
        maintenance: [{ schedule: '0 13 * * *', durationSeconds: 3600, timezone: 'UTC' }],
      },
    });
    clock.set('2026-03-10T12:00:00Z');
    await runOnce(id, 'charted', { status: 'success', durationMs: 5_000 });
    await runOnce(id, 'charted', { status: 'failed', durationMs: 2_000 });
    await runOnce(id, 'charted', { status: 'failed', durationMs: 6_000 });
    clock.set('2026-03-10T13:30:00Z');
    await runOnce(id, 'charted', { status: 'timeout', durationMs: 12_000 });
    clock.set('2026-03-10T15:00:00Z');
    await runOnce(id, 'charted', { status: 'success', durationMs: 1_000 });

    open = await openDashboard(browser, service.url);
    const { page } = open;
    await jobRow(page, 'charted').getByRole('link', { name: 'charted', exact: true }).click();
    await page.getByRole('heading', { name: 'charted' }).waitFor();
    const chart = page.locator('svg.duration-chart');
    await chart.waitFor();
    const bars = await chart
      .locator('rect.chart-bar')
      .evaluateAll((rects) =>
        rects.map((rect) =>
          (rect as unknown as { getAttribute(name: string): string }).getAttribute('class'),
        ),
      );
    expect(bars).toEqual([
      'chart-bar chart-bar-success',
      'chart-bar chart-bar-failed',
      'chart-bar chart-bar-failed',
      'chart-bar chart-bar-timeout',
      'chart-bar chart-bar-success',
    ]);
    expect(await chart.locator('line.chart-limit').count()).toBe(2);
    expect(await chart.locator('text.chart-label').allTextContents()).toEqual(['min 3.00 s', 'max 10.0 s']);
    expect(await chart.getAttribute('aria-label')).toBe(
      'Durations of the last 5 runs, from 1.00 s to 12.0 s; too fast under 3.00 s; overrun after 10.0 s.',
    );
    // The tallest bar is the timeout, above the max line.
    const heights = await chart
      .locator('rect.chart-bar')
      .evaluateAll((rects) =>
        rects.map((rect) =>
          Number((rect as unknown as { getAttribute(name: string): string }).getAttribute('height')),
        ),
      );
    expect(Math.max(...heights)).toBe(heights[3]);

    const history = page.locator('table.alert-history tbody tr');
    await eventually(async () => (await history.count()) === 4);
    const states = await history.evaluateAll((rows) =>
      rows.map((row) => (row as unknown as { dataset: { state: string } }).dataset.state),
    );
    expect(states).toEqual(['delivered', 'muted', 'delivered', 'suppressed']);
    await history
      .nth(3)
      .getByText('failed run 1 of 2 in a row: alerts from the 2nd (afterConsecutiveFailures)')
      .waitFor();
    await history
      .nth(1)
      .getByText(/^muted: maintenance window "0 13 \* \* \*" \(UTC\)/)
      .waitFor();
    await history.nth(0).getByText('tooFast').waitFor();
    await page
      .getByText(
        'alerts from failed run 2 in a row; overrun after 10.0 s; too fast under 3.00 s; muted for 1 h 00 min from “0 13 * * *” (UTC)',
      )
      .waitFor();
    await screenshot(page, 'dashboard-job-page.png');
  });

  it('shows why a job is suspended and switches it back on', async () => {
    const id = await createJob('suspending', { policy: { suspendAfterFailures: 1 } });
    await runOnce(id, 'suspending', { status: 'failed' });
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const row = jobRow(page, 'suspending');
    await row.locator('.badge-suspended').waitFor();
    await row.getByText('suspended', { exact: true }).first().waitFor();
    expect(await row.getByRole('switch').isChecked()).toBe(false);

    await page.goto(`${service.url}/#/jobs/${id}`);
    const notice = page.locator('.suspended-notice');
    await notice.getByText(/^suspended after 1 failed runs in a row/).waitFor();
    await notice.getByRole('button', { name: 'Switch on' }).click();
    await notice.waitFor({ state: 'hidden' });
    expect((await service.request('GET', `/api/jobs/${id}`)).body).toMatchObject({
      enabled: true,
      suspendedReason: null,
    });
  });
});
