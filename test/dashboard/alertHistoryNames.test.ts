import type { Browser } from 'playwright-core';
import { Receiver } from '../alerts/support/receiver';
import { ScriptedRuns } from '../alerts/support/scriptedRuns';
import { eventually, startTestService, type TestService } from '../support/service';
import {
  BROWSER_TEST_TIMEOUT_MS,
  type DashboardPage,
  describeInBrowser,
  launchBrowser,
  openDashboard,
} from './browser';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

const SLACK_TOKEN = 'XyZ7qL2mN9pR4sT6uV8wA1bC';
const QUERY_TOKEN = 'q7Tk9Zp2Lm4Xw8Rv';
const PASSWORD = 'hunter2hunter2';

/** The destinations of the alert history on the job page, in a real browser against the real service. */
describeInBrowser('the alert history’s destinations', () => {
  let service: TestService;
  let browser: Browser;
  let receiver: Receiver;
  let open: DashboardPage | undefined;
  const runs = new ScriptedRuns();

  beforeAll(async () => {
    receiver = await Receiver.start();
    [service, browser] = await Promise.all([
      startTestService({ local: { execute: runs.run }, alerting: { pollIntervalMs: 20 } }),
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

  // Issue 38: every webhook of one host read `webhook: host:port`, so a person could not tell which
  // of them an alert went to.
  it('names each webhook of one host apart, and shows none of their secrets', async () => {
    const host = new URL(receiver.url).host;
    const urls = [
      `${receiver.url}/ops`,
      `${receiver.url}/dba`,
      `${receiver.url}/services/T0123ABCD/B0456EFGH/${SLACK_TOKEN}`,
      `${receiver.url}/in?token=${QUERY_TOKEN}`,
      `http://alerts:${PASSWORD}@${host}/in`,
    ];
    const created = await service.request('POST', '/api/jobs', {
      name: 'named-destinations',
      schedule: '0 3 * * *',
      command: 'true',
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const config = { webhooks: urls.map((url) => ({ url, events: ['failed'] })) };
    expect((await service.request('PUT', `/api/jobs/${id}/alerts`, config)).status).toBe(200);
    runs.next('named-destinations', { status: 'failed' });
    expect((await service.request('POST', `/api/jobs/${id}/run`)).status).toBe(200);
    await service.local.idle();
    await eventually(async () => receiver.requests.length === urls.length);

    open = await openDashboard(browser, service.url, { hash: `#/jobs/${id}` });
    const { page } = open;
    const cells = page.locator('table.alert-history tbody tr td[data-label="Destination"]');
    await eventually(async () => (await cells.count()) === urls.length);
    const shown = await cells.allTextContents();
    expect(new Set(shown).size).toBe(urls.length);
    expect(shown).toEqual(expect.arrayContaining([`webhook: ${host}/ops`, `webhook: ${host}/dba`]));
    for (const text of shown) expect(text.startsWith(`webhook: ${host}/`)).toBe(true);

    const pageText = await page.locator('body').innerText();
    for (const secret of [SLACK_TOKEN, QUERY_TOKEN, PASSWORD]) expect(pageText).not.toContain(secret);
  });
});
