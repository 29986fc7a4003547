import type { Browser } from 'playwright-core';
import { jobInputSchema } from '../../src/domain/job';
import type { Database } from '../../src/store/database';
import { upsertWatchedJob } from '../../src/store/watchedCronJobJobs';
import { createTestDatabase } from '../support/database';
import { startTestService, type TestService } from '../support/service';
import { BROWSER_TEST_TIMEOUT_MS, type DashboardPage, launchBrowser, openDashboard } from './browser';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/**
 * A watched CronJob's job in the dashboard (issue 40): it says which CronJob it is and which
 * CronJobWatch selects it, and does not offer what its owner keeps (edit, delete, and backfill
 * unless the CronJobWatch allows it), saying why; an ordinary job beside it offers them as before.
 */
describe('a watched CronJob in the dashboard', () => {
  let db: Database;
  let service: TestService;
  let browser: Browser;
  let open: DashboardPage | undefined;
  let watchedId: number;
  /** One whose CronJobWatch sets allowBackfill. */
  let backfilledId: number;

  beforeAll(async () => {
    db = await createTestDatabase();
    [service, browser] = await Promise.all([startTestService({ db }), launchBrowser()]);
    const input = jobInputSchema.parse({
      name: 'cronjob.data.db-dump',
      schedule: '0 3 * * *',
      command: 'pg_dump',
      timezone: 'UTC',
    });
    watchedId = (
      await upsertWatchedJob(
        db.pool,
        { namespace: 'data', name: 'db-dump', uid: 'uid-1', watchedBy: 'data-team', allowBackfill: false },
        input,
        'keep',
      )
    ).job.id;
    backfilledId = (
      await upsertWatchedJob(
        db.pool,
        { namespace: 'data', name: 'reindex', uid: 'uid-2', watchedBy: 'data-team', allowBackfill: true },
        { ...input, name: 'cronjob.data.reindex' },
        'keep',
      )
    ).job.id;
    await service.request('POST', '/api/jobs', { name: 'ordinary', schedule: '@daily', command: 'true' });
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await db?.close();
  });
  afterEach(async () => {
    await open?.context.close();
    open = undefined;
  });

  const owner =
    'CronJob data/db-dump is its owner’s, not Crondeck’s: change it there (kubectl -n data edit cronjob db-dump).';

  it('offers no edit or delete of the watched job, saying whose it is', async () => {
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const edit = page.getByRole('button', { name: 'Edit cronjob.data.db-dump' });
    await edit.waitFor();
    expect(await edit.isDisabled()).toBe(true);
    expect(await edit.getAttribute('title')).toBe(owner);
    const remove = page.getByRole('button', { name: 'Delete cronjob.data.db-dump' });
    expect(await remove.isDisabled()).toBe(true);
    expect(await remove.getAttribute('title')).toBe(owner);
    expect(await page.getByRole('button', { name: 'Edit ordinary' }).isDisabled()).toBe(false);
  });

  it('names the CronJob and its CronJobWatch on the job’s page, and offers no backfill', async () => {
    open = await openDashboard(browser, service.url, { hash: `#/jobs/${watchedId}` });
    const { page } = open;
    const ownership = page.locator('.job-ownership');
    await ownership.waitFor();
    expect(await ownership.textContent()).toContain(
      'CronJob data/db-dump, watched by CronJobWatch data-team',
    );
    const backfill = page.getByRole('button', { name: 'Backfill…' });
    expect(await backfill.isDisabled()).toBe(true);
    expect(await backfill.getAttribute('title')).toBe(
      `${owner} Its CronJobWatch does not allow backfill (allowBackfill: true).`,
    );
  });

  it('does not refuse backfill of a watched job whose CronJobWatch allows it for its owner', async () => {
    open = await openDashboard(browser, service.url, { hash: `#/jobs/${backfilledId}` });
    const { page } = open;
    await page.locator('.job-ownership').waitFor();
    const backfill = page.getByRole('button', { name: 'Backfill…' });
    // Not refused for the CronJob's owner: what the session may do decides, as for any job (this
    // local service's session knows no namespace `data`, which is why the button stays disabled),
    // by the CronJob's verbs: a backfill makes Jobs.
    const deadline = Date.now() + 10_000;
    while ((await backfill.getAttribute('title')) === null && Date.now() < deadline) {
      await page.waitForTimeout(50);
    }
    expect(await backfill.getAttribute('title')).toBe(
      'Your Kubernetes role does not allow this in namespace “data” (create jobs).',
    );
  });
});
