import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { reportTokenFor } from '../../src/domain/reportToken';
import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { createTestDatabase, onPostgresServer } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { eventually, startTestService, type TestService } from '../support/service';
import type { ApiServerProxy } from '../kubernetes/apiServerProxy';
import { REPORT_SECRET, runController, startCluster, until } from '../kubernetes/cluster';
import { createCronJob, createCronJobWatch, plainCronJob } from '../kubernetes/watchedCronJobsSupport';
import {
  asAdmin,
  callAs,
  grantRole,
  NAMESPACE_A,
  NAMESPACE_B,
  type Person,
  type RbacCluster,
  serveWithKubernetesAuth,
  serviceAccountToken,
  setUpPeople,
} from '../kubernetes/rbacCluster';
import {
  BROWSER_TEST_TIMEOUT_MS,
  describeInBrowser,
  type DashboardPage,
  jobRow,
  launchBrowser,
  openDashboard,
  screenshot,
} from './browser';

// Functions given to page.evaluate run in the browser; the project compiles without the DOM
// library, so the page globals they use are declared here (declarations emit no code).
declare const sessionStorage: { length: number; getItem(key: string): string | null };
declare const localStorage: { length: number };

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/** Where the page keeps the token (src/dashboard/assets/js/api.js). */
const TOKEN_KEY = 'crondeck.apiToken';

const SIGN_IN = { name: 'Sign in to Crondeck' };

/**
 * Issue 39: the dashboard signs in with a person's Kubernetes token (SERVICE_AUTH=kubernetes), shows
 * who they are and offers what the cluster's RBAC lets them do, against the emulated API server with
 * the people of rbacCluster.ts: a viewer, an editor, a planner (may ask for runs, may not create
 * Jobs) in namespace A, and the cluster's admin. Kubernetes mode needs a PostgreSQL server
 * (DATABASE_URL), as every test of it; the browser, Debian's chromium.
 */
const describeOnPostgresInBrowser = onPostgresServer ? describeInBrowser : describe.skip;

describeOnPostgresInBrowser('dashboard with SERVICE_AUTH=kubernetes', () => {
  let emu: KubeEmulator;
  let db: Database;
  let people: RbacCluster;
  let controller: Awaited<ReturnType<typeof runController>>;
  let service: RunningService;
  let proxy: ApiServerProxy;
  let browser: Browser;
  let open: DashboardPage | undefined;
  let cluster: Awaited<ReturnType<typeof startCluster>>;

  beforeAll(async () => {
    db = await createTestDatabase();
    cluster = await startCluster();
    emu = cluster.emu;
    people = await setUpPeople(emu);
    controller = await runController(cluster.kc, db);
    // Reviews kept for a second: a deleted ServiceAccount's token fails within the test's patience.
    ({ service, proxy } = await serveWithKubernetesAuth(emu, db, people.service, {
      SERVICE_AUTH_CACHE_SECONDS: '1',
    }));
    browser = await launchBrowser();
    const created = await callAs(service.url, people.editor, 'POST', '/api/jobs', {
      name: 'nightly',
      schedule: '0 3 * * *',
      command: 'true',
    });
    expect(created.status).toBe(201);
    const other = await callAs(service.url, people.admin, 'POST', '/api/jobs', {
      name: 'report',
      schedule: '0 4 * * *',
      command: 'true',
      namespace: NAMESPACE_B,
    });
    expect(other.status).toBe(201);
    // A run now reads the job's CronJob: the controller makes it from the ScheduledJob.
    await until(
      () => emu.objects('cronjobs', NAMESPACE_A).find((each) => each.metadata?.name === 'nightly'),
      'the CronJob of the job in A',
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await controller?.stop();
    await proxy?.stop();
    await emu?.stop();
    await db?.close();
  });

  afterEach(async () => {
    const problems = open?.problems ?? [];
    await open?.context.close();
    open = undefined;
    expect(problems).toEqual([]);
  });

  /** Opens the page, which asks for a token, and signs in with `person`'s. */
  async function signInAs(person: Person): Promise<Page> {
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const dialog = page.getByRole('dialog', SIGN_IN);
    await dialog.getByLabel('Kubernetes token').fill(person.token);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await dialog.waitFor({ state: 'detached' }).catch(async (error: Error) => {
      // A dialog still open says why (a refusal, a review that failed): the failure says it too.
      const said = await dialog
        .getByRole('alert')
        .allTextContents()
        .catch(() => []);
      throw new Error(`${error.message}\nThe sign-in dialog said: ${said.join(' ') || '(nothing)'}`);
    });
    await page.locator('#account-name').filter({ hasText: person.username }).waitFor();
    return page;
  }

  /** Whether each of the buttons is disabled, by its accessible name (polled: the page renders on its own). */
  async function disabledStates(page: Page, names: string[]) {
    const states: Record<string, boolean> = {};
    for (const name of names)
      states[name] = await page.getByRole('button', { name, exact: true }).isDisabled();
    return states;
  }

  it('signs a viewer in: who they are, their namespace, its jobs, and no button their role does not allow', async () => {
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const dialog = page.getByRole('dialog', SIGN_IN);
    await dialog.getByText('signs you in with your Kubernetes identity').waitFor();
    const input = dialog.getByLabel('Kubernetes token');
    expect(await input.getAttribute('type')).toBe('password');
    await input.fill(people.viewer.token);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Who they are, as the cluster names them.
    await page.locator('#account-name').filter({ hasText: people.viewer.username }).waitFor();
    expect(await page.locator('#account-name').textContent()).toBe(people.viewer.username);

    // The selector offers the namespaces they may list: A, not B (which holds a job they may not see).
    const picker = page.getByLabel('Namespace', { exact: true });
    await picker.waitFor();
    expect(await picker.locator('option').allTextContents()).toEqual(['All namespaces', NAMESPACE_A]);
    await picker.selectOption(NAMESPACE_A);
    await eventually(async () => open!.requests.includes(`GET /api/jobs?namespace=${NAMESPACE_A}`));
    await eventually(async () => open!.requests.includes(`GET /api/stats?namespace=${NAMESPACE_A}`));
    const row = jobRow(page, 'nightly');
    await row.waitFor();
    expect(await page.locator('.jobs-table tbody tr').count()).toBe(1);
    expect(await row.locator('.job-namespace').textContent()).toBe(NAMESPACE_A);

    // Run, Edit, Delete and the switch are off for a viewer, and say why; so is New job.
    const controls = ['Run nightly now', 'Edit nightly', 'Delete nightly', 'New job'];
    await eventually(async () => Object.values(await disabledStates(page, controls)).every(Boolean));
    expect(await row.getByRole('switch').isDisabled()).toBe(true);
    expect(await row.getByRole('button', { name: 'Run nightly now' }).getAttribute('title')).toBe(
      `Your Kubernetes role does not allow this in namespace “${NAMESPACE_A}” (create scheduledjobs/run).`,
    );
    // What a viewer may do stays on: reading the alerts (without saving them), the history.
    expect(await row.getByRole('button', { name: 'Alerts nightly' }).isEnabled()).toBe(true);
    // Their RoleBinding grants no non-resource URL: the scheduler's state is not theirs to read,
    // which the panel says (no Pause button), rather than the page failing to refresh.
    await page.locator('#scheduler-state').filter({ hasText: 'Scheduler state not shown to you' }).waitFor();
    expect(await page.getByRole('button', { name: 'Pause…' }).count()).toBe(0);
    expect(await page.locator('#banner').isHidden()).toBe(true);
    await screenshot(page, 'dashboard-kubernetes-viewer.png', false);
    if (process.env.UPDATE_DOCS_SCREENSHOT) {
      // docs/dashboard.md shows what a viewer gets: their name, their namespace, the buttons off.
      await page.screenshot({
        path: path.join(__dirname, '..', '..', 'docs', 'dashboard-kubernetes.png'),
        clip: { x: 0, y: 0, width: 1360, height: 420 },
      });
    }

    // The token is in this tab's sessionStorage, never in localStorage or a URL.
    expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY)).toBe(people.viewer.token);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(open.requests.some((request) => request.includes(people.viewer.token))).toBe(false);

    // The job's own page too: no Run now or Backfill for them; its alerts they may read.
    await page.goto(`${service.url}/#/jobs/${await row.getAttribute('data-job-id')}`);
    const jobPage = page.locator('#view-job');
    await jobPage
      .locator('.job-ownership')
      .filter({ hasText: `Namespace ${NAMESPACE_A}` })
      .waitFor();
    expect(await disabledStates(page, ['Run now', 'Backfill…', 'Edit alerts'])).toEqual({
      'Run now': true,
      'Backfill…': true,
      'Edit alerts': false,
    });

    // Signing out forgets it (and the namespace) and asks again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('dialog', SIGN_IN).getByLabel('Kubernetes token').waitFor();
    expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY)).toBeNull();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.locator('#account').isHidden()).toBe(true);
  });

  it('offers Pause only to one whose role allows it, to a viewer bound cluster-wide with the reads', async () => {
    // As the shipped crondeck-view ClusterRole bound cluster-wide: the reads, not pause or resume.
    const watcher = await serviceAccountToken(emu, 'people', 'watcher');
    await asAdmin(emu, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'watcher' },
      rules: [
        { apiGroups: ['crondeck.dev'], resources: ['scheduledjobs', 'alertconfigs'], verbs: ['get', 'list'] },
        { nonResourceURLs: ['/crondeck/api/scheduler/status', '/crondeck/api/cron/*'], verbs: ['get'] },
      ],
    });
    await asAdmin(emu, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'watcher' },
      subjects: [{ kind: 'ServiceAccount', name: 'watcher', namespace: 'people' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'watcher' },
    });
    const page = await signInAs(watcher);
    await jobRow(page, 'nightly').waitFor();
    await page.locator('#scheduler-state').filter({ hasText: 'Scheduler running' }).waitFor();
    const pause = page.getByRole('button', { name: 'Pause…' });
    expect(await pause.isDisabled()).toBe(true);
    expect(await pause.getAttribute('title')).toMatch(/does not allow pausing or resuming the scheduler/);

    // The editor may (their ClusterRole grants post on /crondeck/api/scheduler/*).
    expect(open!.problems).toEqual([]);
    await open!.context.close();
    const editorPage = await signInAs(people.editor);
    await editorPage.locator('#scheduler-state').filter({ hasText: 'Scheduler running' }).waitFor();
    expect(await editorPage.getByRole('button', { name: 'Pause…' }).isEnabled()).toBe(true);
  });

  it('refuses a token the cluster does not accept with its 401 message, keeping nothing', async () => {
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const dialog = page.getByRole('dialog', SIGN_IN);
    await dialog.getByLabel('Kubernetes token').fill('not-a-token-of-this-cluster');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: /Wrong token.*the cluster's API server did not accept the bearer token/ })
      .waitFor();
    await screenshot(page, 'dashboard-kubernetes-wrong-token.png', false);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await dialog.waitFor();
  });

  it('shows the jobs of the namespace chosen, for one who may list them all', async () => {
    const page = await signInAs(people.admin);
    const picker = page.getByLabel('Namespace', { exact: true });
    expect(await picker.locator('option').allTextContents()).toEqual([
      'All namespaces',
      NAMESPACE_A,
      NAMESPACE_B,
    ]);
    await jobRow(page, 'nightly').waitFor();
    await jobRow(page, `${NAMESPACE_B}.report`).waitFor();

    // Another namespace: what they may do there is asked again.
    const sessionReads = () => open!.requests.filter((request) => request === 'GET /api/session').length;
    const before = sessionReads();
    await picker.selectOption(NAMESPACE_B);
    await eventually(async () => sessionReads() > before);
    await jobRow(page, 'nightly').waitFor({ state: 'detached' });
    expect(await page.locator('.jobs-table tbody tr').count()).toBe(1);
    await jobRow(page, `${NAMESPACE_B}.report`).waitFor();

    await picker.selectOption(NAMESPACE_A);
    await jobRow(page, `${NAMESPACE_B}.report`).waitFor({ state: 'detached' });
    await jobRow(page, 'nightly').waitFor();
    // Kept for the tab: a reload shows the same namespace.
    await page.reload();
    await jobRow(page, 'nightly').waitFor();
    expect(await page.getByLabel('Namespace', { exact: true }).inputValue()).toBe(NAMESPACE_A);
    expect(await jobRow(page, `${NAMESPACE_B}.report`).count()).toBe(0);
  });

  it('lets an editor run a job, and shows who started the run and who last changed the job', async () => {
    const page = await signInAs(people.editor);
    const row = jobRow(page, 'nightly');
    await row.waitFor();
    const controls = ['Run nightly now', 'Edit nightly', 'Delete nightly', 'New job'];
    await eventually(async () => Object.values(await disabledStates(page, controls)).every((off) => !off));
    expect(await row.getByRole('switch').isEnabled()).toBe(true);
    await row
      .locator('.job-changed-by')
      .filter({ hasText: `Last changed by ${people.editor.username}` })
      .waitFor();

    // A new job goes to a namespace where they may create jobs, which the form asks for.
    await page.getByRole('button', { name: 'New job' }).click();
    const form = page.getByRole('dialog', { name: 'New job' });
    const namespaceField = form.getByLabel('Namespace', { exact: true });
    expect(await namespaceField.locator('option').allTextContents()).toEqual([NAMESPACE_A]);
    await form.getByLabel('Name', { exact: true }).fill('from-the-page');
    await form.getByLabel('Schedule (cron)').fill('0 5 * * *');
    await form.getByLabel('Command').fill('true');
    await screenshot(page, 'dashboard-kubernetes-new-job.png', false);
    await form.getByRole('button', { name: 'Create job' }).click();
    await form.waitFor({ state: 'detached' });
    await jobRow(page, 'from-the-page').locator('.job-namespace').filter({ hasText: NAMESPACE_A }).waitFor();
    expect(open!.requests).toContain('POST /api/jobs');

    await row.getByRole('button', { name: 'Run nightly now' }).click();
    await page.locator('.toast-success').filter({ hasText: 'nightly' }).waitFor();
    // The run is a Job the editor's token created; its pod reports it (here: the test, as the pod).
    const kubeJob = await until(
      () =>
        emu.objects('jobs', NAMESPACE_A).find((each) => each.metadata?.name?.startsWith('nightly-manual-')),
      'the Job of the run now',
    );
    const jobId = Number(await row.getAttribute('data-job-id'));
    const at = new Date().toISOString();
    const report = await fetch(`${service.url}/api/jobs/${jobId}/reports`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${reportTokenFor(REPORT_SECRET, jobId)}`,
      },
      body: JSON.stringify({
        podUid: 'pod-of-the-run-now',
        runUid: (kubeJob as Obj).metadata.uid,
        attempt: 0,
        final: true,
        status: 'success',
        exitCode: 0,
        startedAt: at,
        finishedAt: at,
      }),
    });
    expect(report.status).toBe(201);

    await page.getByRole('link', { name: 'Executions' }).click();
    const run = page.locator('.executions-table tbody tr').filter({ hasText: 'nightly' });
    await run
      .locator('.triggered-by')
      .filter({ hasText: `by ${people.editor.username}` })
      .waitFor();
    await screenshot(page, 'dashboard-kubernetes-triggered-by.png', false);
    await run.getByRole('link', { name: /^Output of nightly/ }).click();
    const startedBy = page.locator('.fact').filter({ has: page.locator('dt', { hasText: 'Started by' }) });
    expect(await startedBy.locator('dd').textContent()).toBe(people.editor.username);

    // The job's own page says where it lives and who last changed it.
    await page.goto(`${service.url}/#/jobs/${jobId}`);
    await page
      .locator('.job-ownership')
      .filter({ hasText: `Namespace ${NAMESPACE_A} · last changed by ${people.editor.username}` })
      .waitFor();
  });

  it('shows the cluster’s 403 when it refuses an action the role seemed to allow, and asks the session again', async () => {
    // The planner may ask for runs (scheduledjobs/run) but may not create the Jobs they are.
    const page = await signInAs(people.planner);
    const row = jobRow(page, 'nightly');
    await row.waitFor();
    await eventually(async () => row.getByRole('button', { name: 'Run nightly now' }).isEnabled());
    expect(await row.getByRole('button', { name: 'Edit nightly' }).isDisabled()).toBe(true);
    const sessionReads = () => open!.requests.filter((request) => request === 'GET /api/session').length;
    const before = sessionReads();

    await row.getByRole('button', { name: 'Run nightly now' }).click();
    // The API server's words, as the service passes them on.
    const refusal = `User "${people.planner.username}" cannot create resource "jobs" in API group "batch"`;
    await page
      .locator('.toast-error')
      .filter({ hasText: new RegExp(`^Could not run nightly: .*${escapeRegExp(refusal)}`) })
      .waitFor();
    await eventually(async () => sessionReads() > before);
  });

  it('says so while the cluster cannot review tokens, signs in none, and picks up once it can', async () => {
    open = await openDashboard(browser, service.url);
    const { page } = open;
    const dialog = page.getByRole('dialog', SIGN_IN);
    const unavailable = /the cluster's API server could not review the request/;
    // Reviews refused, and the viewer's token no longer known from a kept review (the service keeps
    // one for SERVICE_AUTH_CACHE_SECONDS, and never keeps a failure): their session answers 503.
    const reviewsFail = async () => {
      proxy.fault = 'refuse';
      await eventually(
        async () => (await callAs(service.url, people.viewer, 'GET', '/api/session')).status === 503,
      );
    };
    try {
      // The check of the token answers 503: the form says why and keeps nothing.
      await reviewsFail();
      await dialog.getByLabel('Kubernetes token').fill(people.viewer.token);
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await dialog
        .getByRole('alert')
        .filter({ hasText: /^Could not check the token: / })
        .filter({ hasText: unavailable })
        .waitFor();
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      proxy.fault = 'none';
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await page.locator('#account-name').filter({ hasText: people.viewer.username }).waitFor();
      await jobRow(page, 'nightly').waitFor();

      // A reload while reviews fail: the session cannot be read, the page starts all the same and
      // says why, without asking for the kept token again; the polls read the session once they can.
      await reviewsFail();
      await page.reload();
      await page.locator('#banner').filter({ hasText: unavailable }).waitFor();
      expect(await dialog.count()).toBe(0);
      expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY)).toBe(people.viewer.token);
      proxy.fault = 'none';
      await page.locator('#account-name').filter({ hasText: people.viewer.username }).waitFor();
      await jobRow(page, 'nightly').waitFor();
      await page.locator('#banner').waitFor({ state: 'hidden' });
    } finally {
      proxy.fault = 'none';
    }
  });

  it('asks again, with the service’s words, once the cluster no longer accepts the token', async () => {
    const leaver = await serviceAccountToken(emu, 'people', 'leaver');
    await grantRole(
      emu,
      NAMESPACE_A,
      'leaver',
      [{ apiGroups: ['crondeck.dev'], resources: ['scheduledjobs'], verbs: ['get', 'list'] }],
      'leaver',
    );
    const page = await signInAs(leaver);
    await jobRow(page, 'nightly').waitFor();

    // Its ServiceAccount deleted, the token's next review fails: the next poll answers 401.
    await asAdmin(emu, 'DELETE', '/api/v1/namespaces/people/serviceaccounts/leaver');
    const dialog = page.getByRole('dialog', SIGN_IN);
    await dialog
      .getByText(
        /Your token is no longer accepted\. The service said: “the cluster's API server did not accept/,
      )
      .waitFor({ timeout: 30_000 });
    expect(await dialog.textContent()).toContain('serviceaccounts "leaver" not found');
    expect(await page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY)).toBeNull();

    // Another token signs in again, without a reload.
    await dialog.getByLabel('Kubernetes token').fill(people.viewer.token);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await page.locator('#account-name').filter({ hasText: people.viewer.username }).waitFor();
  });
  it('offers a watched CronJob’s buttons by what the CronJob’s verbs allow', async () => {
    await createCronJob(cluster.kc, plainCronJob('backup', { labels: { backup: 'yes' } }));
    await createCronJobWatch(cluster.kc, 'backups', { selector: { matchLabels: { backup: 'yes' } } });
    const name = `cronjob.${NAMESPACE_A}.backup`;
    // The editor's Role: `create jobs` and `get cronjobs` in batch, no `patch cronjobs`, nothing on
    // CronJobWatches. For a ScheduledJob's job every button is theirs (the tests above).
    const page = await signInAs(people.editor);
    const row = jobRow(page, name);
    await row.waitFor({ timeout: 30_000 });
    await eventually(async () => row.getByRole('button', { name: `Run ${name} now` }).isEnabled());
    const why = (verb: string) =>
      `Your Kubernetes role does not allow this in namespace “${NAMESPACE_A}” (${verb}).`;
    expect(await row.getByRole('switch').isDisabled()).toBe(true);
    expect(await row.getByRole('switch').getAttribute('title')).toBe(why('patch cronjobs'));
    const alerts = row.getByRole('button', { name: `Alerts ${name}` });
    expect(await alerts.isDisabled()).toBe(true);
    expect(await alerts.getAttribute('title')).toBe(why('get cronjobwatches'));
    expect(await jobRow(page, 'nightly').getByRole('switch').isEnabled()).toBe(true);
  });
});

describeInBrowser('dashboard in local mode, beside sign-in', () => {
  let service: TestService;
  let browser: Browser;
  let open: DashboardPage | undefined;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
    const created = await service.request('POST', '/api/jobs', {
      name: 'local-job',
      schedule: '@daily',
      command: 'true',
    });
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

  it('asks for no token and shows no namespace, account or sign-out; every button works', async () => {
    open = await openDashboard(browser, service.url);
    const { page, requests } = open;
    const row = jobRow(page, 'local-job');
    await row.waitFor();
    await page.getByText('Scheduler running').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await page.locator('#namespace-picker').isHidden()).toBe(true);
    expect(await page.locator('#account').isHidden()).toBe(true);
    expect(await page.locator('#forget-token').isHidden()).toBe(true);
    expect(await row.locator('.job-namespace').isHidden()).toBe(true);
    expect(await row.locator('.job-changed-by').isHidden()).toBe(true);
    for (const name of ['Run local-job now', 'Edit local-job', 'Delete local-job', 'Alerts local-job']) {
      expect([name, await row.getByRole('button', { name }).isEnabled()]).toEqual([name, true]);
    }
    expect(await row.getByRole('switch').isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'New job' }).isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Pause…' }).isEnabled()).toBe(true);
    expect(requests).toContain('GET /api/session');
    expect(requests).toContain('GET /api/jobs');
    expect(requests.filter((request) => request.includes('namespace='))).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
