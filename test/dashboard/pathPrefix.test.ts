import type { Browser, Response } from 'playwright-core';
import { eventually, startTestService, type TestService } from '../support/service';
import {
  BROWSER_TEST_TIMEOUT_MS,
  describeInBrowser,
  type DashboardPage,
  jobRow,
  launchBrowser,
  openDashboard,
} from './browser';
import { type PrefixProxy, startPrefixProxy } from './prefixProxy';

// Functions given to page.evaluate run in the browser; the project compiles without the DOM
// library, so the page global they use is declared here (declarations emit no code).
declare function getComputedStyle(element: unknown): { display: string };

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/**
 * Behind an Ingress that strips a path prefix (https://host/crondeck/ reaching the service as /),
 * the page must ask for everything relative to itself: its files, the API, its redirects. The
 * proxy here answers 404 outside the prefix, so an absolute URL breaks the page as it would there.
 */
const PREFIX = '/crondeck';
const TOKEN = 'dashboard-prefix-token-0123456789';

/** Where each response the page had came from, and those that failed. */
function watchResponses(open: DashboardPage): { failed: string[]; seen: Map<string, number> } {
  const failed: string[] = [];
  const seen = new Map<string, number>();
  open.page.on('response', (response: Response) => {
    const url = new URL(response.url());
    seen.set(url.pathname, response.status());
    if (response.status() >= 400) failed.push(`${response.status()} ${url.pathname}`);
  });
  return { failed, seen };
}

/** A service behind the prefix proxy and a browser, for the tests of one describe block. */
interface PrefixedDashboard {
  service: TestService;
  proxy: PrefixProxy;
  browser: Browser;
  /** The page a test opened: closed after it, which must have seen no problem and no stray request. */
  open?: DashboardPage;
}

/** Starts the service (with `env`) behind the prefix proxy, and a browser, around a describe block. */
function prefixedDashboard(env: Record<string, string> = {}): PrefixedDashboard {
  const dashboard = {} as PrefixedDashboard;
  beforeAll(async () => {
    [dashboard.service, dashboard.browser] = await Promise.all([startTestService({ env }), launchBrowser()]);
    dashboard.proxy = await startPrefixProxy(dashboard.service.url, PREFIX);
  });
  afterAll(async () => {
    await dashboard.browser?.close();
    await dashboard.proxy?.close();
    await dashboard.service?.stop();
  });
  beforeEach(() => {
    dashboard.proxy.strays.length = 0;
  });
  afterEach(async () => {
    const problems = dashboard.open?.problems ?? [];
    await dashboard.open?.context.close();
    dashboard.open = undefined;
    expect(problems).toEqual([]);
    expect(dashboard.proxy.strays).toEqual([]);
  });
  return dashboard;
}

describeInBrowser('the dashboard at / and behind a path prefix', () => {
  const dashboard = prefixedDashboard();

  const bases: [string, () => { base: string; path: string }][] = [
    [`behind ${PREFIX}/`, () => ({ base: `${dashboard.proxy.url}${PREFIX}`, path: `${PREFIX}/` })],
    ['at /', () => ({ base: dashboard.service.url, path: '/' })],
  ];

  it.each(bases)(
    '%s: loads its files, shows the jobs, runs one, and opens a deep link',
    async (_where, at) => {
      const { base, path } = at();
      const name = `prefixed-${path.length}-${Date.now()}`;
      const created = await dashboard.service.request('POST', '/api/jobs', {
        name,
        schedule: '@daily',
        command: 'true',
      });
      expect(created.status).toBe(201);

      dashboard.open = await openDashboard(dashboard.browser, base, { hash: '#/jobs' });
      const { page, requests } = dashboard.open;
      // Watched from a reload: openDashboard has loaded the page once already.
      const responses = watchResponses(dashboard.open);
      await page.reload();
      const row = jobRow(page, name);
      await row.waitFor();
      await page.locator('#health').filter({ hasText: 'Healthy' }).waitFor();
      // The stylesheet applied: the header is laid out by app.css, not as the browser's default block.
      expect(await page.locator('.topbar-inner').evaluate((el) => getComputedStyle(el).display)).toBe('flex');

      await row.getByRole('button', { name: `Run ${name} now` }).click();
      await page.locator('.toast').filter({ hasText: 'triggered' }).waitFor();
      await row.locator('.badge-success').waitFor({ timeout: 20_000 });

      expect(responses.failed).toEqual([]);
      // 200, or 304 where the reload revalidated what the first load fetched.
      for (const file of [
        '',
        'assets/app.css',
        'assets/js/main.js',
        'assets/js/api.js',
        'assets/favicon.svg',
      ]) {
        const status = responses.seen.get(`${path}${file}`);
        expect([file, status === 200 || status === 304 ? 'loaded' : status]).toEqual([file, 'loaded']);
      }
      // Every request the page made stayed under its own path: files and API alike.
      expect(requests.filter((request) => !request.split(' ')[1]!.startsWith(path))).toEqual([]);
      for (const call of [
        'GET health',
        'GET api/stats',
        'GET api/jobs',
        `POST api/jobs/${created.body.id}/run`,
      ])
        expect(requests).toContain(call.replace(' ', ` ${path}`));

      // A deep link (the routes are in the fragment): the job's own page, loaded from scratch.
      await page.goto(`${base}/#/jobs/${created.body.id}`);
      await page.reload();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      await page.goto(`${base}/#/executions?jobId=${created.body.id}`);
      await page.reload();
      await page.locator('.executions-table tbody tr[data-status="success"]').waitFor();
      expect(responses.failed).toEqual([]);
    },
  );

  it.each(bases)('%s: redirects favicon.ico to the icon beside the page', async (_where, at) => {
    const { base, path } = at();
    const answer = await fetch(`${base}/favicon.ico`, { redirect: 'manual' });
    expect(answer.status).toBe(301);
    const location = new URL(answer.headers.get('location')!, `${base}/favicon.ico`);
    expect(location.pathname).toBe(`${path}assets/favicon.svg`);
    const icon = await fetch(location);
    expect([icon.status, icon.headers.get('content-type')]).toEqual([
      200,
      expect.stringMatching(/^image\/svg/),
    ]);
  });
});

describeInBrowser('the dashboard with SERVICE_API_TOKEN behind a path prefix', () => {
  const dashboard = prefixedDashboard({ SERVICE_API_TOKEN: TOKEN });

  beforeAll(async () => {
    const created = await dashboard.service.request(
      'POST',
      '/api/jobs',
      { name: 'guarded-behind-prefix', schedule: '@daily', command: 'true' },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(created.status).toBe(201);
  });

  it('checks the token and reads the jobs under the prefix', async () => {
    dashboard.open = await openDashboard(dashboard.browser, `${dashboard.proxy.url}${PREFIX}`);
    const { page, requests } = dashboard.open;
    const dialog = page.getByRole('dialog', { name: 'Sign in to Crondeck' });
    await dialog.getByLabel('API token').fill(TOKEN);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await jobRow(page, 'guarded-behind-prefix').waitFor();
    await eventually(async () => requests.includes(`GET ${PREFIX}/api/jobs`));
    expect(requests).toContain(`GET ${PREFIX}/api/stats`);
    expect(requests.filter((request) => !request.split(' ')[1]!.startsWith(`${PREFIX}/`))).toEqual([]);
  });
});
