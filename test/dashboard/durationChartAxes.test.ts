import type { Browser, Locator } from 'playwright-core';
import { ScriptedRuns } from '../alerts/support/scriptedRuns';
import { startTestService, type TestService } from '../support/service';
import {
  BROWSER_TEST_TIMEOUT_MS,
  type DashboardPage,
  jobRow,
  launchBrowser,
  openDashboard,
  screenshot,
} from './browser';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The job page's "Durations of the last runs" chart reads without hovering: a duration axis with
 * values at round steps, and when the runs started along the bottom, each axis named. In a real
 * browser against the real service.
 */
describe('the axes of the durations chart', () => {
  let service: TestService;
  let browser: Browser;
  let open: DashboardPage | undefined;
  const runs = new ScriptedRuns();

  beforeAll(async () => {
    [service, browser] = await Promise.all([
      startTestService({ local: { execute: runs.run } }),
      launchBrowser(),
    ]);
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

  /** The texts of `locator`'s elements, each with where it is drawn on the page. */
  const drawn = (locator: Locator) =>
    locator.evaluateAll((elements) =>
      elements.map((element) => {
        const box = element.getBoundingClientRect();
        return {
          text: element.textContent,
          box: { x: box.x, y: box.y, width: box.width, height: box.height },
        };
      }),
    );
  const inside = (inner: Box, outer: Box) =>
    inner.width > 0 &&
    inner.height > 0 &&
    inner.x >= outer.x - 1 &&
    inner.y >= outer.y - 1 &&
    inner.x + inner.width <= outer.x + outer.width + 1 &&
    inner.y + inner.height <= outer.y + outer.height + 1;

  it('labels the durations at round values and the runs by their start', async () => {
    const created = await service.request('POST', '/api/jobs', {
      name: 'timed',
      schedule: '0 3 * * *',
      command: 'true',
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    for (const durationMs of [5_000, 2_000, 6_000, 12_000, 1_000]) {
      runs.next('timed', { status: durationMs === 2_000 ? 'failed' : 'success', durationMs });
      expect((await service.request('POST', `/api/jobs/${id}/run`)).status).toBe(200);
      await service.local.idle();
    }

    open = await openDashboard(browser, service.url);
    const { page } = open;
    await jobRow(page, 'timed').getByRole('link', { name: 'timed', exact: true }).click();
    await page.getByRole('heading', { name: 'timed' }).waitFor();
    const chart = page.locator('svg.duration-chart');
    await chart.waitFor();
    await screenshot(page, 'duration-chart-axes.png');
    const chartBox = (await chart.boundingBox())!;

    // Durations up to 12 s: steps of 5 s up to 15 s, from the bottom up.
    const durations = await drawn(chart.locator('text.chart-tick-duration'));
    expect(durations.map((tick) => tick.text)).toEqual(['0', '5 s', '10 s', '15 s']);
    for (const tick of durations) expect(inside(tick.box, chartBox)).toBe(true);
    const heights = durations.map((tick) => tick.box.y);
    expect([...heights].sort((a, b) => b - a)).toEqual(heights);
    // The tallest bar (12 s) reaches between the 10 s and 15 s values.
    const bars = await drawn(chart.locator('rect.chart-bar'));
    expect(bars).toHaveLength(5);
    const tallest = Math.min(...bars.map((bar) => bar.box.y));
    expect(tallest).toBeLessThan(durations[2]!.box.y);
    expect(tallest).toBeGreaterThan(durations[3]!.box.y);

    // Each run's start, oldest on the left, under its bar.
    const starts = await drawn(chart.locator('text.chart-tick-run'));
    expect(starts).toHaveLength(5);
    for (const [i, start] of starts.entries()) {
      expect(start.text).toMatch(/\d\d:\d\d/);
      expect(inside(start.box, chartBox)).toBe(true);
      expect(start.box.y).toBeGreaterThan(bars[i]!.box.y + bars[i]!.box.height - 1);
      const barCentre = bars[i]!.box.x + bars[i]!.box.width / 2;
      expect(Math.abs(start.box.x + start.box.width / 2 - barCentre)).toBeLessThan(2);
    }
    expect(await chart.locator('text.chart-axis-title').allTextContents()).toEqual([
      'Duration',
      'Start of each run, oldest on the left',
    ]);
  });
});
