import path from 'node:path';
import type { Browser, Locator, Page, Route } from 'playwright-core';
import { reportTokenFor } from '../../src/domain/reportToken';
import type { RunnableJob } from '../../src/runner/attemptLoop';
import type { CommandResult } from '../../src/runner/runCommand';
import { ControlledAttempts } from '../support/attempts';
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
import type { SlotJson } from '../support/slotJson';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

const DOCS_DIR = path.join(__dirname, '..', '..', 'docs');
const SECRET = 'the-report-secret-of-the-dashboard-slot-tests';
/** The browser's own zone: two hours ahead of UTC in June, so a time read as UTC shows. */
const BROWSER_ZONE = { timezoneId: 'Europe/Berlin', locale: 'en-US' };

/** "12:05:00 PM": how the page (en-US, Europe/Berlin) shows the time of an instant. */
const berlinTime = (iso: string) =>
  new Date(iso).toLocaleTimeString('en-US', {
    timeZone: 'Europe/Berlin',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });

/** Values of an attribute (or a data- key) of every element a locator matches, in order. */
const attributes = (locator: Locator, name: string) =>
  locator.evaluateAll(
    (elements, attribute) =>
      elements.map((element) =>
        (element as unknown as { getAttribute(n: string): string }).getAttribute(attribute),
      ),
    name,
  );

/**
 * The slot ledger in the dashboard, in a real browser against the real service: slots of every
 * outcome made to happen through the local runtime (a hand-moved clock) and the claim API.
 */
describe('slot ledger in the dashboard', () => {
  let service: TestService;
  let browser: Browser;
  let open: DashboardPage | undefined;
  const clock = new ManualClock('2026-06-01T10:00:30Z');
  const attempts = new ControlledAttempts();
  /** The slot each started attempt was for, as its command would see it. */
  const slotsRun: (string | null)[] = [];
  const execute = (job: RunnableJob, attempt: number, signal: AbortSignal): Promise<CommandResult> => {
    slotsRun.push(job.scheduledAt?.toISOString() ?? null);
    return attempts.run(job, attempt, signal);
  };

  beforeAll(async () => {
    [service, browser] = await Promise.all([
      startTestService({
        clock,
        env: { SERVICE_REPORT_SECRET: SECRET },
        local: { execute, sleep: async () => undefined },
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await browser?.close();
    await service?.stop();
  });
  afterEach(async () => {
    const problems = open?.problems ?? [];
    await open?.context.close();
    open = undefined;
    expect(problems).toEqual([]);
  });

  async function createJob(body: Record<string, unknown>): Promise<{ id: number; name: string }> {
    const response = await service.request('POST', '/api/jobs', { command: 'true', ...body });
    expect(response.status).toBe(201);
    return response.body;
  }
  const slotsOf = async (jobId: number, query = ''): Promise<SlotJson[]> => {
    const response = await service.request('GET', `/api/jobs/${jobId}/slots${query}`);
    expect(response.status).toBe(200);
    return response.body;
  };
  const claim = (jobId: number, scheduledAt: string, runKey: string) =>
    service.request(
      'POST',
      `/api/jobs/${jobId}/slots/claim`,
      { scheduledAt, runKey },
      { authorization: `Bearer ${reportTokenFor(SECRET, jobId)}` },
    );
  const tickAt = (time: string) => service.local.tick(clock.set(time));

  describe('a job with a slot of every outcome', () => {
    let job: { id: number; name: string };
    /** Its slots as the API lists them, oldest first. */
    let slots: SlotJson[];

    beforeAll(async () => {
      clock.set('2026-06-01T10:00:30Z');
      job = await createJob({ name: 'every-minute', schedule: '* * * * *', allowDuplicateSlots: true });
      // 10:01 ran, and its run is still going at 10:02: skipped.
      await tickAt('2026-06-01T10:01:00Z');
      await attempts.waitForStarted(1);
      await tickAt('2026-06-01T10:02:00Z');
      attempts.finishNext();
      await service.local.idle();
      // Switched off over 10:03: suspended.
      clock.set('2026-06-01T10:02:30Z');
      expect((await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: false })).status).toBe(
        200,
      );
      await tickAt('2026-06-01T10:03:00Z');
      clock.set('2026-06-01T10:03:30Z');
      expect((await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: true })).status).toBe(
        200,
      );
      // The scheduler paused over 10:04: paused.
      clock.set('2026-06-01T10:03:40Z');
      expect((await service.request('POST', '/api/scheduler/pause')).status).toBe(200);
      await tickAt('2026-06-01T10:04:00Z');
      clock.set('2026-06-01T10:04:30Z');
      expect((await service.request('POST', '/api/scheduler/resume')).status).toBe(200);
      // Nothing fires 10:05 (no tick: the service "was down"): missed. A run claims 10:06 90 s
      // after its time, past its grace of 60 s: late. Two runs claim 10:07: duplicate.
      clock.set('2026-06-01T10:07:30Z');
      expect((await claim(job.id, '2026-06-01T10:06:00Z', 'late-run')).status).toBe(200);
      clock.set('2026-06-01T10:07:31Z');
      expect((await claim(job.id, '2026-06-01T10:07:00Z', 'first-run')).status).toBe(200);
      expect((await claim(job.id, '2026-06-01T10:07:00Z', 'second-run')).body).toMatchObject({
        duplicate: true,
      });
      // Judged up to 10:08 (missed too).
      await service.local.judgeSlots(clock.set('2026-06-01T10:09:00Z'));
      slots = (await slotsOf(job.id)).reverse();
      expect(slots.map((slot) => `${slot.scheduledAt.slice(11, 16)} ${slot.outcome}`)).toEqual([
        '10:01 ran',
        '10:02 skipped',
        '10:03 suspended',
        '10:04 paused',
        '10:05 missed',
        '10:06 late',
        '10:07 duplicate',
        '10:08 missed',
      ]);
    });

    it('shows its slots on the jobs list as cells, oldest left, each naming its time, outcome and reason', async () => {
      open = await openDashboard(browser, service.url, BROWSER_ZONE);
      const { page } = open;
      const strip = jobRow(page, 'every-minute').getByRole('group', {
        name: 'Recent slots of every-minute, oldest first',
      });
      const cells = strip.locator('.slot-cell');
      await eventually(async () => (await cells.count()) === slots.length);

      expect(await attributes(cells, 'data-scheduled-at')).toEqual(slots.map((slot) => slot.scheduledAt));
      expect(await attributes(cells, 'data-outcome')).toEqual(slots.map((slot) => slot.outcome));
      const labels = await attributes(cells, 'aria-label');
      const titles = await attributes(cells, 'title');
      expect(titles).toEqual(labels);
      slots.forEach((slot, index) => {
        const label = labels[index]!;
        // The time in the browser's zone (12:05 in Berlin is 10:05 UTC), the outcome, the reason.
        expect(label.startsWith('Jun 1, 2026')).toBe(true);
        expect(label).toContain(berlinTime(slot.scheduledAt));
        expect(label.endsWith(`: ${slot.outcome}${slot.reason ? ` — ${slot.reason}` : ''}`)).toBe(true);
      });
      // Reasons a person understands, hovering over a missed and a late cell.
      expect(slots[4]!.reason).toMatch(/^nothing started it/);
      expect(slots[5]!.reason).toMatch(/^started .* after its time, past its grace of 1 min/);
      // The cells are images by name: a screen reader reads each slot.
      await strip.getByRole('img', { name: labels[4]! }).waitFor();

      // Not colour alone: each outcome has a glyph of its own, and a colour of its own.
      const looks = await cells.evaluateAll((elements) =>
        elements.map((element) => {
          const cell = element as unknown as { textContent: string; dataset: { outcome: string } };
          const style = (
            globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
          ).getComputedStyle(element);
          return { outcome: cell.dataset.outcome, glyph: cell.textContent, colour: style.backgroundColor };
        }),
      );
      const byOutcome = new Map(looks.map((look) => [look.outcome, look]));
      expect(byOutcome.size).toBe(7);
      expect(new Set([...byOutcome.values()].map((look) => look.glyph)).size).toBe(7);
      expect(new Set([...byOutcome.values()].map((look) => look.colour)).size).toBe(7);
      await screenshot(page, 'dashboard-slot-strip.png', false);
      if (process.env.UPDATE_DOCS_SCREENSHOT) {
        // docs/slots.md shows the row: a strip with a cell of every outcome.
        await page.locator('.jobs-table').screenshot({ path: path.join(DOCS_DIR, 'slots-dashboard.png') });
      }

      // A slot judged while the page is open joins the strip on the right at the next refresh.
      await service.local.judgeSlots(clock.set('2026-06-01T10:10:00Z'));
      slots = (await slotsOf(job.id)).reverse();
      expect(slots.at(-1)).toMatchObject({ scheduledAt: '2026-06-01T10:09:00.000Z', outcome: 'missed' });
      const refresh = page.getByRole('button', { name: 'Refresh' });
      await refresh.click();
      await eventually(async () => (await cells.count()) === slots.length);
      expect((await attributes(cells, 'data-scheduled-at')).at(-1)).toBe('2026-06-01T10:09:00.000Z');
      // Nothing new, the strip is not asked for again: three more refreshes, no slot request.
      const { requests } = open;
      const stripRequests = () =>
        requests.filter((r) => r.startsWith(`GET /api/jobs/${job.id}/slots`)).length;
      const listPolls = () => requests.filter((r) => r === 'GET /api/jobs').length;
      const asked = stripRequests();
      const polls = listPolls();
      // The poller never runs two refreshes at once: when the third asks for the job list, the
      // first two have rendered, and asked for whatever strip they wanted.
      for (const more of [1, 2, 3]) {
        await refresh.click();
        await eventually(async () => listPolls() >= polls + more);
      }
      expect(stripRequests()).toBe(asked);
    });

    it('lists its slots on the job page, newest first, with start, delay, reason and links to the runs', async () => {
      open = await openDashboard(browser, service.url, { ...BROWSER_ZONE, hash: `#/jobs/${job.id}` });
      const { page } = open;
      await page.getByRole('heading', { name: 'every-minute' }).waitFor();
      const rows = page.locator('table.slot-history tbody tr');
      await eventually(async () => (await rows.count()) === slots.length);
      await page.getByText('Times in your time zone, Europe/Berlin.').waitFor();

      const newestFirst = [...slots].reverse();
      expect(await attributes(rows, 'data-outcome')).toEqual(newestFirst.map((slot) => slot.outcome));
      for (const [index, slot] of newestFirst.entries()) {
        const cells = rows.nth(index).locator('td');
        expect(await cells.nth(0).textContent()).toContain(berlinTime(slot.scheduledAt));
        expect(await cells.nth(0).locator('time').getAttribute('datetime')).toBe(slot.scheduledAt);
        expect(await cells.nth(1).textContent()).toContain(slot.outcome);
        expect(await cells.nth(2).textContent()).toContain(slot.startedAt ? berlinTime(slot.startedAt) : '—');
        expect((await cells.nth(4).textContent())?.trim()).toBe(slot.reason ?? '');
        expect(await attributes(cells.nth(5).locator('a'), 'href')).toEqual(
          slot.executionIds.map((id) => `#/executions/${id}`),
        );
      }
      // The late slot: started 90 s after its time.
      await screenshot(page, 'dashboard-slot-history.png');
      const late = rows.nth(newestFirst.findIndex((slot) => slot.outcome === 'late'));
      expect(await late.locator('td').nth(3).textContent()).toBe('1 min 30 s');
      // The ran slot links to its run.
      const ran = slots[0]!;
      expect(ran.executionIds).toHaveLength(1);
      await rows
        .nth(slots.length - 1)
        .getByRole('link', { name: new RegExp(`^Run ${ran.executionIds[0]} of the slot`) })
        .click();
      await page.waitForURL(new RegExp(`#/executions/${ran.executionIds[0]}$`));
      await page.getByRole('heading', { name: `every-minute · execution #${ran.executionIds[0]}` }).waitFor();
    });
  });

  it('pages through a long slot history by time, newer and older', async () => {
    clock.set('2026-06-01T11:00:30Z');
    const job = await createJob({ name: 'long-history', schedule: '* * * * *' });
    // 50 slots nothing ran for, 11:01 … 11:50: two whole pages, and no third.
    await service.local.judgeSlots(clock.set('2026-06-01T11:51:00Z'));
    const all = await slotsOf(job.id);
    expect(all).toHaveLength(50);

    open = await openDashboard(browser, service.url, { ...BROWSER_ZONE, hash: `#/jobs/${job.id}` });
    const { page, requests } = open;
    const rows = page.locator('table.slot-history tbody tr');
    const times = () => attributes(rows.locator('td:first-child time'), 'datetime');
    await eventually(async () => (await rows.count()) === 25);
    expect(await times()).toEqual(all.slice(0, 25).map((slot) => slot.scheduledAt));
    const newer = page.getByRole('button', { name: 'Newer' });
    const older = page.getByRole('button', { name: 'Older' });
    expect(await newer.isDisabled()).toBe(true);

    await older.click();
    await page.getByText('Page 2').waitFor();
    expect(await times()).toEqual(all.slice(25).map((slot) => slot.scheduledAt));
    expect(await older.isDisabled()).toBe(true);
    // The older page is asked for by `to`: just before the oldest slot of the page before.
    expect(requests).toContain(
      `GET /api/jobs/${job.id}/slots?to=${encodeURIComponent('2026-06-01T11:25:59.999Z')}&limit=26`,
    );

    await newer.click();
    await page.getByText('Page 1').waitFor();
    expect(await times()).toEqual(all.slice(0, 25).map((slot) => slot.scheduledAt));
    expect(await newer.isDisabled()).toBe(true);
  });

  it('fills the strips without holding up the table: rows on screen first, three requests at a time', async () => {
    clock.set('2026-06-01T12:00:30Z');
    const ids: number[] = [];
    for (let n = 0; n < 40; n++) {
      // The last with a long command: cut short, it must not push the strips out of view.
      const command =
        n === 39 ? `echo "${'a long command line '.repeat(6)}" | tee /var/log/many.log` : 'true';
      ids.push(
        (await createJob({ name: `many-${String(n).padStart(2, '0')}`, schedule: '* * * * *', command })).id,
      );
    }
    // 17 slots each (12:01 … 12:17), more than a strip shows.
    await service.local.judgeSlots(clock.set('2026-06-01T12:18:00Z'));

    const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, ...BROWSER_ZONE });
    const page = await context.newPage();
    open = { context, page, problems: [], requests: [] };
    page.setDefaultTimeout(15_000);
    // Slot answers wait until the test lets them through.
    const held: Route[] = [];
    const asked = new Set<string>();
    let mostHeld = 0;
    await page.route(/\/api\/jobs\/\d+\/slots\?/, (route) => {
      asked.add(new URL(route.request().url()).pathname);
      held.push(route);
      mostHeld = Math.max(mostHeld, held.length);
    });
    await page.goto(`${service.url}/#/jobs`);

    // The table is there while every strip's answer is still held.
    await jobRow(page, 'many-39').waitFor();
    expect(await page.locator('.jobs-table tbody tr').count()).toBeGreaterThanOrEqual(40);
    await eventually(async () => held.length === 3);

    const release = async () => {
      for (let quiet = 0; quiet < 4;) {
        const next = held.shift();
        if (next) {
          quiet = 0;
          await next.continue();
        } else {
          quiet += 1;
          await page.waitForTimeout(250);
        }
      }
    };
    await release();
    expect(mostHeld).toBe(3);
    // Only the rows on screen (and just below) were asked for.
    const firstScreen = asked.size;
    expect(firstScreen).toBeGreaterThan(0);
    expect(firstScreen).toBeLessThan(20);
    expect(asked.has(`/api/jobs/${ids[39]}/slots`)).toBe(false);

    // Scrolled to, the last row's strip is asked for and shows its slot.
    const last = jobRow(page, 'many-39');
    await last.scrollIntoViewIfNeeded();
    await eventually(async () => held.length > 0 || asked.has(`/api/jobs/${ids[39]}/slots`));
    await release();
    expect(asked.has(`/api/jobs/${ids[39]}/slots`)).toBe(true);
    await last
      .getByRole('img', { name: /: missed — nothing started it/ })
      .first()
      .waitFor();
    expect(mostHeld).toBe(3);
    // The newest 16, and a full strip still leaves the table room: nothing scrolls sideways.
    expect(await attributes(last.locator('.slot-cell'), 'data-scheduled-at')).toEqual(
      Array.from({ length: 16 }, (_, i) => `2026-06-01T12:${String(i + 2).padStart(2, '0')}:00.000Z`),
    );
    const sideways = await page.locator('.jobs-table').evaluate((table) => {
      const wrap = (table as unknown as { parentElement: { scrollWidth: number; clientWidth: number } })
        .parentElement;
      return wrap.scrollWidth - wrap.clientWidth;
    });
    await screenshot(page, 'dashboard-slot-strips.png', false);
    expect(sideways).toBeLessThanOrEqual(0);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  it('shows no strip until a job has a judged slot, then asks for it', async () => {
    clock.set('2026-06-01T13:00:30Z');
    const job = await createJob({ name: 'brand-new', schedule: '* * * * *' });
    open = await openDashboard(browser, service.url, BROWSER_ZONE);
    const { page, requests } = open;
    const row = jobRow(page, 'brand-new');
    // The last of many rows: on screen, where a strip would be asked for.
    await row.scrollIntoViewIfNeeded();
    const strip = row.getByRole('group', { name: 'Recent slots of brand-new, oldest first' });
    expect(await strip.count()).toBe(0);
    expect(requests.filter((r) => r.startsWith(`GET /api/jobs/${job.id}/slots`))).toEqual([]);

    await service.local.judgeSlots(clock.set('2026-06-01T13:02:00Z'));
    await page.getByRole('button', { name: 'Refresh' }).click();
    await strip.getByRole('img', { name: /: missed — nothing started it/ }).waitFor();
    expect(await attributes(strip.locator('.slot-cell'), 'data-scheduled-at')).toEqual([
      '2026-06-01T13:01:00.000Z',
    ]);
  });

  describe('a job whose runs failed and succeeded, by schedule, by hand and by backfill', () => {
    let job: { id: number; name: string };
    let executions: { id: number; trigger: string | null; scheduledAt: string | null; status: string }[];

    beforeAll(async () => {
      // Only this job fires at 14:01 and 14:02: the every-minute jobs of the tests before go.
      const { body: others } = await service.request('GET', '/api/jobs');
      for (const other of others as { id: number }[]) {
        expect((await service.request('DELETE', `/api/jobs/${other.id}`)).status).toBe(200);
      }
      clock.set('2026-06-01T14:00:30Z');
      job = await createJob({ name: 'flaky', schedule: '* * * * *' });
      // 14:01 fires and its run fails; 14:02 fires and its run succeeds.
      await tickAt('2026-06-01T14:01:00Z');
      await eventually(async () => attempts.pending.length === 1);
      attempts.finishNext({ status: 'failed', exitCode: 1 });
      await service.local.idle();
      await tickAt('2026-06-01T14:02:00Z');
      await eventually(async () => attempts.pending.length === 1);
      attempts.finishNext();
      await service.local.idle();
      // A run by hand, and a backfill of 13:50.
      clock.set('2026-06-01T14:02:30Z');
      expect((await service.request('POST', `/api/jobs/${job.id}/run`)).status).toBeLessThan(300);
      await eventually(async () => attempts.pending.length === 1);
      attempts.finishNext();
      await service.local.idle();
      const backfill = await service.request('POST', `/api/jobs/${job.id}/backfill`, {
        from: '2026-06-01T13:50:00Z',
        to: '2026-06-01T13:50:00Z',
      });
      expect(backfill.status).toBe(202);
      await eventually(async () => attempts.pending.length === 1);
      attempts.finishNext();
      await service.local.idle();
      await service.local.judgeSlots(clock.set('2026-06-01T14:03:30Z'));
      const listed = await service.request('GET', `/api/executions?jobId=${job.id}`);
      executions = listed.body;
      expect(
        executions.map((e) => `${e.trigger} ${e.scheduledAt?.slice(11, 16) ?? '-'} ${e.status}`).sort(),
      ).toEqual([
        'backfill 13:50 success',
        'null - success',
        'schedule 14:01 failed',
        'schedule 14:02 success',
      ]);
    });

    it('does not draw a slot whose run failed as a success, in the strip or the slot table', async () => {
      const slots = await slotsOf(job.id);
      const failedSlot = slots.find((slot) => slot.scheduledAt === '2026-06-01T14:01:00.000Z')!;
      expect(failedSlot.outcome).toBe('ran');
      open = await openDashboard(browser, service.url, BROWSER_ZONE);
      const { page } = open;
      const strip = jobRow(page, 'flaky').getByRole('group', { name: 'Recent slots of flaky, oldest first' });
      const failedCell = strip.locator('.slot-cell[data-scheduled-at="2026-06-01T14:01:00.000Z"]');
      const okCell = strip.locator('.slot-cell[data-scheduled-at="2026-06-01T14:02:00.000Z"]');
      // Its state keeps the ledger's name; its hover text says how the run ended.
      await strip.getByRole('img', { name: /: ran, its run failed$/ }).waitFor();
      expect(await failedCell.getAttribute('data-outcome')).toBe('ran');
      expect(await failedCell.getAttribute('title')).toBe(
        `Jun 1, 2026, ${berlinTime(failedSlot.scheduledAt)}: ran, its run failed`,
      );
      // Neither the success's glyph nor its colour.
      const look = (cell: Locator) =>
        cell.evaluate((element) => ({
          glyph: (element as unknown as { textContent: string }).textContent,
          colour: (
            globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
          ).getComputedStyle(element).backgroundColor,
        }));
      const failed = await look(failedCell);
      const ok = await look(okCell);
      expect(ok.glyph).toBe('✓');
      expect(failed.glyph).not.toBe('✓');
      expect(failed.colour).not.toBe(ok.colour);
      expect(await okCell.getAttribute('title')).toMatch(/: ran$/);

      // The job page's slot table says it in the outcome's badge.
      await page.goto(`${service.url}/#/jobs/${job.id}`);
      const row = page.locator('table.slot-history tbody tr[data-run-status="failed"]');
      await row.waitFor();
      expect(await row.locator('time').first().getAttribute('datetime')).toBe(failedSlot.scheduledAt);
      const badge = row.locator('.slot-badge');
      expect((await badge.textContent())?.trim()).toBe('✗ran · its run failed');
      expect(
        await badge.evaluate(
          (element) =>
            (
              globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
            ).getComputedStyle(element).backgroundColor,
        ),
      ).not.toBe(ok.colour);
      await screenshot(page, 'dashboard-slot-failed-run.png');
    });

    it('says what started each run, and the slot it was for, in the list and on its page', async () => {
      open = await openDashboard(browser, service.url, {
        ...BROWSER_ZONE,
        hash: `#/executions?jobId=${job.id}`,
      });
      const { page } = open;
      const rows = page.locator('.executions-table tbody tr');
      await eventually(async () => (await rows.count()) === executions.length);
      const slotText = (iso: string) => `slot Jun 1, 2026, ${berlinTime(iso)}`;
      const expected: Record<string, string> = { schedule: 'scheduled', backfill: 'backfill' };
      for (const execution of executions) {
        const tag = page.locator(`tr[data-execution-id="${execution.id}"] .trigger-tag`);
        const word = execution.trigger ? expected[execution.trigger]! : 'by hand';
        expect(await tag.textContent()).toBe(word);
        expect(await tag.getAttribute('title')).toBe(
          execution.scheduledAt ? `${word} · ${slotText(execution.scheduledAt)}` : word,
        );
      }

      // The backfill's page: "backfill · slot Jun 1, 2026, 03:50:00 PM" (13:50 UTC in Berlin).
      const backfilled = executions.find((e) => e.trigger === 'backfill')!;
      await page.goto(`${service.url}/#/executions/${backfilled.id}`);
      await page.getByRole('heading', { name: `flaky · execution #${backfilled.id}` }).waitFor();
      const trigger = page
        .locator('.fact', { has: page.locator('dt', { hasText: /^Trigger$/ }) })
        .locator('dd');
      expect(await trigger.textContent()).toBe('backfill · slot Jun 1, 2026, 03:50:00 PM');
      expect(await trigger.locator('time').getAttribute('datetime')).toBe('2026-06-01T13:50:00.000Z');
      // A run by hand has no slot.
      const byHand = executions.find((e) => e.trigger === null)!;
      await page.goto(`${service.url}/#/executions/${byHand.id}`);
      await page.getByRole('heading', { name: `flaky · execution #${byHand.id}` }).waitFor();
      expect(await trigger.textContent()).toBe('by hand');
    });
  });

  describe('the backfill dialog', () => {
    const openDialog = async (page: Page, name: string) => {
      await page.getByRole('heading', { name }).waitFor();
      await page.getByRole('button', { name: 'Backfill…' }).click();
      return page.getByRole('dialog', { name: `Backfill ${name}` });
    };

    it('backfills a range typed in the browser’s time zone, shows the slot count, and the service’s 409 and 400 as said', async () => {
      clock.set('2026-06-02T12:00:30Z');
      const job = await createJob({ name: 'hourly', schedule: '0 * * * *' });
      open = await openDashboard(browser, service.url, { ...BROWSER_ZONE, hash: `#/jobs/${job.id}` });
      const { page } = open;
      const dialog = await openDialog(page, 'hourly');
      await dialog
        .getByText('Times are in your browser’s time zone, Europe/Berlin.', { exact: false })
        .waitFor();

      // 03:00 to 07:30 in Berlin (summer time) is 01:00 to 05:30 UTC: the 01:00 … 05:00 slots.
      await dialog.getByLabel('From').fill('2026-06-02T03:00');
      await dialog.getByLabel('To').fill('2026-06-02T07:30');
      await dialog.getByLabel('Runs at a time').fill('2');
      await dialog.getByText('Sent as 2026-06-02T01:00:00.000Z to 2026-06-02T05:30:00.000Z (UTC).').waitFor();
      const started = slotsRun.length;
      const startButton = dialog.getByRole('button', { name: 'Start backfill' });
      await startButton.click();
      await dialog
        .getByRole('status')
        .getByText('Backfill started: 5 slots of hourly will run, oldest first.')
        .waitFor();
      // Two at a time, oldest first: the slots of 01:00 and 02:00 UTC.
      await attempts.waitForStarted(started + 2);
      expect(slotsRun.slice(started).sort()).toEqual([
        '2026-06-02T01:00:00.000Z',
        '2026-06-02T02:00:00.000Z',
      ]);
      await screenshot(page, 'dashboard-backfill.png', false);

      // Again while it runs: the service's 409, word for word.
      await startButton.click();
      const refusal = dialog.getByRole('alert');
      await refusal.waitFor();
      const conflict = await service.request('POST', `/api/jobs/${job.id}/backfill`, {
        from: '2026-06-02T01:00:00Z',
        to: '2026-06-02T05:30:00Z',
      });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error).toMatch(/has a backfill in progress/);
      expect(await refusal.textContent()).toBe(conflict.body.error);

      // A range the wrong way round: the service's 400, word for word.
      await dialog.getByLabel('From').fill('2026-06-02T08:00');
      await startButton.click();
      await dialog.getByRole('alert').getByText('from: must not be after to', { exact: true }).waitFor();
      expect(await dialog.getByRole('status').count()).toBe(0);

      // Let the backfill finish: its five runs, two at a time.
      await eventually(async () => {
        while (attempts.pending.length > 0) attempts.finishNext();
        return slotsRun.length === started + 5;
      });
      while (attempts.pending.length > 0) attempts.finishNext();
      await service.local.idle();
    });

    it('shows the time in a refusal in the browser’s time zone, as the form’s, not in UTC', async () => {
      clock.set('2026-06-02T12:00:30Z');
      const job = await createJob({ name: 'too-far', schedule: '0 * * * *' });
      open = await openDashboard(browser, service.url, { ...BROWSER_ZONE, hash: `#/jobs/${job.id}` });
      const { page } = open;
      const dialog = await openDialog(page, 'too-far');
      // 16:00 in Berlin is 14:00 UTC: two hours after the service's now (12:00:30 UTC).
      await dialog.getByLabel('From').fill('2026-06-02T10:00');
      await dialog.getByLabel('To').fill('2026-06-02T16:00');
      await dialog.getByRole('button', { name: 'Start backfill' }).click();
      const refusal = dialog.getByRole('alert');
      await refusal.waitFor();
      expect(await refusal.textContent()).toBe(
        'to: must not be in the future (it is Jun 2, 2026, 02:00:30 PM): a backfill runs slots that have passed',
      );
    });

    it('shows why a disabled job cannot be backfilled', async () => {
      const job = await createJob({ name: 'switched-off', schedule: '0 * * * *', enabled: false });
      open = await openDashboard(browser, service.url, { ...BROWSER_ZONE, hash: `#/jobs/${job.id}` });
      const { page } = open;
      const dialog = await openDialog(page, 'switched-off');
      // Without a range nothing is sent: each empty field says what it needs.
      const { requests } = open;
      await dialog.getByRole('button', { name: 'Start backfill' }).click();
      await dialog.getByText('Give the first time of the range.').waitFor();
      await dialog.getByText('Give the last time of the range.').waitFor();
      expect(await dialog.getByLabel('From').getAttribute('aria-invalid')).toBe('true');
      expect(requests.filter((r) => r.startsWith('POST '))).toEqual([]);
      await dialog.getByLabel('From').fill('2026-06-02T03:00');
      await dialog.getByLabel('To').fill('2026-06-02T04:00');
      await dialog.getByRole('button', { name: 'Start backfill' }).click();
      await dialog
        .getByRole('alert')
        .getByText('job "switched-off" is disabled; enable it to backfill', { exact: true })
        .waitFor();
      // Cancel closes it.
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    });
  });
});
