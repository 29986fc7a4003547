import { execFileSync } from 'node:child_process';
import type { V1CronJob, V1Job } from '@kubernetes/client-node';
import { statusOf } from './clusterApi';
import {
  CONTROLLER_IDENTITIES,
  e2eAuth,
  type E2eHarness,
  type E2eTarget,
  LEASE_NAME,
  startE2e,
  within,
} from './harness';
import { describeRbac } from './rbac';
import { describeWatchedCronJobs } from './watchedCronJobs';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const GROUP = { group: 'crondeck.dev', version: 'v1alpha1', plural: 'scheduledjobs' };
const SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
const MANUAL = 'cronjob.kubernetes.io/instantiate';

/**
 * A command whose output shows every way Kubernetes or an encoding could change it on the way to
 * /bin/sh: a quoted heredoc prints its own lines verbatim (`$$`, `$(date)`, `$(HOME)`, backticks,
 * quotes, non-ASCII), the other lines evaluate them (the shell's pid is a number, `$(date +%Y)` a
 * year, `$(HOME)` a command substitution that finds no command HOME, not the variable's value).
 */
const BYTES_COMMAND = [
  "cat <<'END'",
  'verbatim: pid=$$ date=$(date) home=$(HOME) $$(HOME) ${HOME} `echo tick` "double" \'single\' \\back',
  // A variable the kubelet defines before CRONDECK_COMMAND: it would be expanded without escaping.
  'job: $(CRONDECK_JOB_NAME) $(CRONDECK_JOB_ID)',
  'naïve ☃ 漢字 🎉 $',
  'END',
  'p=$$; case $p in ""|*[!0-9]*) echo "pid: [$p] is not a number";; *) echo "pid: a number";; esac',
  'y=$(date +%Y); case $y in [0-9][0-9][0-9][0-9]) echo "date: a year";; *) echo "date: [$y]";; esac',
  'h=$(HOME) 2>/dev/null; echo "HOME as a command: [$h], as a variable: [$HOME]"',
  'echo "`echo back`ticks" "it\'s" \'say "hi"\'',
  'printf "%s\\n" "two',
  'lines"',
].join('\n');
const BYTES_HOME = '/home/e2e';

/** What /bin/sh on this machine prints for the command: the same bytes must come from the pod. */
function runLocally(command: string): string {
  return execFileSync('/bin/sh', ['-c', command], {
    env: { PATH: process.env.PATH, HOME: BYTES_HOME },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/**
 * The end-to-end suite: Crondeck's whole loop on a cluster, observed only through the cluster's
 * API and `crondeck serve`'s REST API. `target` gives the cluster (the emulator in `npm test`,
 * the KUBECONFIG's cluster in `npm run test:e2e`). The tests run in order and build on each other.
 */
export function describeE2e(title: string, provideTarget: () => Promise<E2eTarget>): void {
  describe(title, () => {
    let target: E2eTarget | undefined;
    let h: E2eHarness;
    const jobIds = new Map<string, number>();

    beforeAll(async () => {
      target = await provideTarget();
      h = await startE2e(target);
    }, 240_000);
    afterAll(async () => {
      await h?.stop();
      await target?.stop();
    }, 120_000);

    const wait = <T>(ms: number, what: string, check: () => Promise<T | undefined | null | false>) =>
      within(ms, what, () => h.diagnostics(), check);
    const scheduledJob = async (name: string): Promise<Obj | undefined> => {
      try {
        return (await h.api.custom.getNamespacedCustomObject({
          ...GROUP,
          namespace: h.namespace,
          name,
        })) as Obj;
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    };
    const ready = async (name: string) =>
      ((await scheduledJob(name))?.status?.conditions as Obj[] | undefined)?.find((c) => c.type === 'Ready');
    const create = (name: string, spec: Obj) =>
      h.api.custom.createNamespacedCustomObject({
        ...GROUP,
        namespace: h.namespace,
        body: { apiVersion: 'crondeck.dev/v1alpha1', kind: 'ScheduledJob', metadata: { name }, spec },
      });
    const ownedBy = (uid: string) => (object: { metadata?: { ownerReferences?: Obj[] } }) =>
      (object.metadata?.ownerReferences ?? []).some((ref) => ref.uid === uid && ref.controller);
    const cronJobOf = async (name: string): Promise<V1CronJob | undefined> => {
      const uid = (await scheduledJob(name))?.metadata?.uid as string | undefined;
      if (!uid) return undefined;
      const { items } = await h.api.batch.listNamespacedCronJob({ namespace: h.namespace });
      return items.find(ownedBy(uid));
    };
    const jobsOf = async (cronJob: V1CronJob): Promise<V1Job[]> => {
      const { items } = await h.api.batch.listNamespacedJob({ namespace: h.namespace });
      return items.filter(ownedBy(cronJob.metadata!.uid!));
    };
    const executions = async (jobId: number) =>
      (await h.rest('GET', `/api/executions?jobId=${jobId}`)).body as unknown as Obj[];
    const execution = async (id: number) => (await h.rest('GET', `/api/executions/${id}`)).body;

    /** Creates a job with a schedule that never fires here, waits for it to be Ready, and runs it now. */
    async function runNow(name: string, spec: Obj): Promise<{ job: V1Job; recorded: Obj }> {
      await create(name, { schedule: '0 0 1 1 *', timeZone: 'UTC', ...spec });
      const jobId = await wait(h.bounds.settleMs * 10, `${name} Ready`, async () =>
        (await ready(name))?.status === 'True' ? ((await scheduledJob(name))?.status?.jobId as number) : null,
      );
      jobIds.set(name, jobId);
      const triggered = await h.rest('POST', `/api/jobs/${jobId}/run`);
      expect(triggered.status).toBe(200);
      const cronJob = (await cronJobOf(name))!;
      const job = await wait(h.bounds.runMs, `the manual Job of ${name}`, async () =>
        (await jobsOf(cronJob)).find((j) => j.metadata?.annotations?.[MANUAL] === 'manual'),
      );
      const done = await wait(h.bounds.runMs, `the run of ${name} to be recorded`, async () =>
        (await executions(jobId)).find((e) => e.status === 'success' || e.status === 'failed'),
      );
      return { job, recorded: await execution(done.id) };
    }

    it('turns a ScheduledJob into a CronJob it owns, and says Ready', async () => {
      await create('minutely', {
        schedule: '* * * * *',
        timeZone: 'UTC',
        command: 'echo tick; echo oops >&2; exit 3',
        onFailure: `${h.receiver.url}/hook`,
        // A short grace: the ledger judges its slots within seconds of their time.
        lateAfterSeconds: 5,
      });
      const condition = await wait(h.bounds.settleMs * 10, 'Ready', async () => {
        const found = await ready('minutely');
        return found?.status === 'True' ? found : null;
      });
      expect(condition).toMatchObject({ status: 'True' });
      const resource = (await scheduledJob('minutely'))!;
      const cronJob = (await cronJobOf('minutely'))!;
      expect(cronJob.metadata!.ownerReferences).toEqual([
        expect.objectContaining({
          apiVersion: 'crondeck.dev/v1alpha1',
          kind: 'ScheduledJob',
          name: 'minutely',
          uid: resource.metadata.uid,
          controller: true,
        }),
      ]);
      expect(cronJob.spec).toMatchObject({ schedule: '* * * * *', timeZone: 'UTC', suspend: false });
      const jobId = resource.status.jobId as number;
      jobIds.set('minutely', jobId);
      expect((await h.rest('GET', `/api/jobs/${jobId}`)).body).toMatchObject({ name: 'minutely' });
    });

    it('is fired by the cluster’s CronJob controller; the pod runs `crondeck run`, which reports output and exit code', async () => {
      const jobId = jobIds.get('minutely')!;
      const cronJob = (await cronJobOf('minutely'))!;
      target!.hastenScheduledFire();
      const fired = await wait(h.bounds.fireMs, 'the CronJob controller to fire', async () =>
        (await jobsOf(cronJob)).find((j) => j.metadata?.annotations?.[SCHEDULED_TIMESTAMP]),
      );
      expect(fired.spec!.template.spec!.containers[0]!.command).toEqual(['crondeck', 'run']);
      const failed = await wait(h.bounds.runMs, 'the run to be recorded', async () =>
        (await executions(jobId)).find((e) => e.status === 'failed'),
      );
      expect(failed).toMatchObject({ jobId, exitCode: 3, attempt: 0 });
      const full = await execution(failed.id);
      expect(full.stdout).toBe('tick\n');
      expect(full.stderr).toContain('oops\n');
      jobIds.set('minutely-execution', failed.id);
    }, 180_000);

    it('records the scheduled run with its slot, which the ledger then judges ran', async () => {
      const jobId = jobIds.get('minutely')!;
      const executionId = jobIds.get('minutely-execution')!;
      const recorded = await execution(executionId);
      expect(recorded).toMatchObject({ trigger: 'schedule', scheduledAt: expect.any(String) });
      // Its slot is the fire time of the CronJob controller's Job that ran it.
      const cronJob = (await cronJobOf('minutely'))!;
      const fireTimes = (await jobsOf(cronJob)).flatMap((j) => {
        const stamp = j.metadata?.annotations?.[SCHEDULED_TIMESTAMP];
        return stamp ? [new Date(stamp).toISOString()] : [];
      });
      expect(fireTimes).toContain(recorded.scheduledAt);
      // Judged once its grace (5 s) has passed, by `crondeck serve`'s judge (every 5 s); on the
      // emulator the cluster's clock may run up to a minute ahead of serve's.
      const slot = await wait(90_000, 'the slot to be judged', async () => {
        const at = encodeURIComponent(recorded.scheduledAt);
        const { body } = await h.rest('GET', `/api/jobs/${jobId}/slots?from=${at}&to=${at}`);
        return (body as unknown as Obj[])[0];
      });
      expect(slot).toMatchObject({ scheduledAt: recorded.scheduledAt, outcome: 'ran' });
      expect(slot.executionIds).toContain(executionId);
    }, 120_000);

    it('delivers the run’s alert once', async () => {
      const executionId = jobIds.get('minutely-execution')!;
      const forRun = () => h.receiver.to('/hook').filter((r) => r.json?.execution?.id === executionId);
      await wait(h.bounds.runMs, 'the webhook', async () => forRun().length > 0);
      expect(forRun()[0]!.json).toMatchObject({
        event: 'failed',
        job: { name: 'minutely' },
        execution: { exitCode: 3 },
      });
      // A second delivery would come from the outbox's next pass: give it that long.
      await new Promise((resolve) => setTimeout(resolve, h.bounds.settleMs * 2));
      expect(forRun()).toHaveLength(1);
    }, 120_000);

    it('toggles: a disabled job’s CronJob is suspended, an enabled one’s is not', async () => {
      const jobId = jobIds.get('minutely')!;
      const suspended = async () => (await cronJobOf('minutely'))?.spec?.suspend;
      expect((await h.rest('PATCH', `/api/jobs/${jobId}/toggle`, { enabled: false })).status).toBe(200);
      await wait(h.bounds.settleMs * 10, 'the CronJob suspended', async () => (await suspended()) === true);
      expect((await h.rest('GET', `/api/jobs/${jobId}`)).body.enabled).toBe(false);
      expect((await h.rest('PATCH', `/api/jobs/${jobId}/toggle`, { enabled: true })).status).toBe(200);
      await wait(h.bounds.settleMs * 10, 'the CronJob resumed', async () => (await suspended()) === false);
      // Disabled for the rest of the suite: on a real cluster it would fire every minute.
      expect((await h.rest('PATCH', `/api/jobs/${jobId}/toggle`, { enabled: false })).status).toBe(200);
      await wait(h.bounds.settleMs * 10, 'the CronJob suspended', async () => (await suspended()) === true);
    });

    it('runs a command now with its $$, $(date), $(HOME), backticks, quotes, newlines and non-ASCII reaching /bin/sh byte for byte (Crondeck’s image)', async () => {
      const { job, recorded } = await runNow('bytes', {
        command: BYTES_COMMAND,
        env: [{ name: 'HOME', value: BYTES_HOME }],
      });
      expect(job.spec!.template.spec!.containers[0]!.command).toEqual(['crondeck', 'run']);
      const expected = runLocally(BYTES_COMMAND);
      expect(expected).toContain('pid: a number\n');
      expect(expected).toContain('HOME as a command: [], as a variable: [/home/e2e]\n');
      expect(recorded).toMatchObject({ status: 'success', exitCode: 0 });
      expect(recorded.stdout).toBe(expected);
    }, 180_000);

    it('starts the command where it can write (Crondeck’s image has a read-only root but /tmp)', async () => {
      const { recorded } = await runNow('writes', {
        command: 'echo saved > "report-$$.txt" && cat "report-$$.txt" && rm "report-$$.txt" && pwd',
      });
      expect(recorded).toMatchObject({ status: 'success', exitCode: 0, stdout: 'saved\n/tmp\n' });
    }, 180_000);

    it('does the same in an image of the user’s (spec.image: the runner as a native sidecar)', async () => {
      const { job, recorded } = await runNow('bytes-image', {
        command: BYTES_COMMAND,
        image: h.jobImage,
        env: [{ name: 'HOME', value: BYTES_HOME }],
      });
      const pod = job.spec!.template.spec!;
      expect(pod.initContainers![0]).toMatchObject({ restartPolicy: 'Always' });
      expect(pod.containers[0]!.image).toBe(h.jobImage);
      expect(recorded).toMatchObject({ status: 'success', exitCode: 0 });
      expect(recorded.stdout).toBe(runLocally(BYTES_COMMAND));
    }, 180_000);

    it('backfills past slots: the controller starts a Job for each, whose run is recorded as the slot’s', async () => {
      // Hourly: on a real cluster it fires at most once while the suite runs; the backfill asks
      // for the last two hours' slots.
      await create('hourly', {
        schedule: '0 * * * *',
        timeZone: 'UTC',
        command: 'echo "$CRONDECK_SCHEDULED_TIME"',
      });
      const jobId = await wait(h.bounds.settleMs * 10, 'hourly Ready', async () =>
        (await ready('hourly'))?.status === 'True'
          ? ((await scheduledJob('hourly'))?.status?.jobId as number)
          : null,
      );
      const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
      const slots = [hour - 7_200_000, hour - 3_600_000].map((at) => new Date(at).toISOString());
      const asked = await h.rest('POST', `/api/jobs/${jobId}/backfill`, {
        from: slots[0],
        to: slots[1],
        concurrency: 2,
      });
      expect(asked).toMatchObject({ status: 202, body: { slots: 2 } });
      const recorded = await wait(h.bounds.runMs, 'both backfilled runs to be recorded', async () => {
        const runs = (await executions(jobId)).filter(
          (e) => e.trigger === 'backfill' && e.status === 'success',
        );
        return runs.length === 2 ? runs : null;
      });
      expect(recorded.map((e) => e.scheduledAt).sort()).toEqual(slots);
      for (const run of recorded) expect((await execution(run.id)).stdout).toBe(`${run.scheduledAt}\n`);
      // Started by the controller, as Jobs of the job's CronJob.
      const cronJob = (await cronJobOf('hourly'))!;
      expect(
        (await jobsOf(cronJob)).filter((j) => j.metadata?.labels?.['crondeck.dev/backfill-id']),
      ).toHaveLength(2);
    }, 180_000);

    it('pauses every CronJob until a time, then resumes those of enabled jobs by itself', async () => {
      const until = new Date(Date.now() + 8000);
      const paused = await h.rest('POST', '/api/scheduler/pause', { until: until.toISOString() });
      expect(paused.body).toMatchObject({ paused: true });
      const suspended = async (name: string) => (await cronJobOf(name))?.spec?.suspend;
      await wait(h.bounds.settleMs * 5, 'the CronJobs suspended', async () =>
        (await Promise.all(['bytes', 'bytes-image'].map(suspended))).every((s) => s === true),
      );
      await wait(20_000, 'the CronJobs resumed after `until`', async () =>
        (await Promise.all(['bytes', 'bytes-image'].map(suspended))).every((s) => s === false),
      );
      expect(Date.now()).toBeGreaterThanOrEqual(until.getTime());
      expect(await suspended('minutely')).toBe(true); // still disabled
      expect((await h.rest('GET', '/api/scheduler/status')).body).toMatchObject({ paused: false });
    }, 60_000);

    it('refuses an invalid ScheduledJob with Ready=False and makes no CronJob', async () => {
      await create('never', { schedule: '0 0 30 2 *', command: 'true' });
      const condition = await wait(h.bounds.settleMs * 10, 'Ready=False', async () => {
        const found = await ready('never');
        return found?.status === 'False' ? found : null;
      });
      expect(condition).toMatchObject({
        reason: 'InvalidSpec',
        message: expect.stringMatching(/^spec\.schedule: /),
      });
      expect(await cronJobOf('never')).toBeUndefined();
    });

    it('deletes a job, and the cluster collects its CronJob, Jobs and pods', async () => {
      const jobId = jobIds.get('minutely')!;
      const cronJob = (await cronJobOf('minutely'))!;
      const jobs = await jobsOf(cronJob);
      expect(jobs.length).toBeGreaterThan(0);
      expect((await h.rest('DELETE', `/api/jobs/${jobId}`)).status).toBeLessThan(300);
      await wait(h.bounds.gcMs, 'the ScheduledJob, its CronJob, Jobs and pods to be gone', async () => {
        if (await scheduledJob('minutely')) return false;
        const { items: cronJobs } = await h.api.batch.listNamespacedCronJob({ namespace: h.namespace });
        const { items: left } = await h.api.batch.listNamespacedJob({ namespace: h.namespace });
        const { items: pods } = await h.api.core.listNamespacedPod({ namespace: h.namespace });
        const jobUids = new Set(jobs.map((j) => j.metadata!.uid!));
        return (
          !cronJobs.some((c) => c.metadata!.uid === cronJob.metadata!.uid) &&
          !left.some((j) => jobUids.has(j.metadata!.uid!)) &&
          !pods.some((p) => (p.metadata?.ownerReferences ?? []).some((ref) => jobUids.has(ref.uid)))
        );
      });
      expect(
        ((await h.rest('GET', '/api/jobs')).body as unknown as Obj[]).map((job) => job.id),
      ).not.toContain(jobId);
      // Kubernetes mode: a caller who may not get every namespace's jobs learns nothing of one that
      // is not there (the 403 of a job not seen: docs/security.md).
      expect((await h.rest('GET', `/api/jobs/${jobId}`)).status).toBe(h.auth === 'kubernetes' ? 403 : 404);
    }, 120_000);

    // Kubernetes mode: every row of docs/security.md's access table, for three people.
    if (e2eAuth() === 'kubernetes') describeRbac(() => h);

    describeWatchedCronJobs(
      () => h,
      () => target!,
    );

    it('runs two controllers on one Lease: when the leader stops, the other takes over', async () => {
      const holder = async () =>
        (await h.api.leases.readNamespacedLease({ name: LEASE_NAME, namespace: h.namespace })).spec
          ?.holderIdentity;
      const leader = (await holder())!;
      expect(CONTROLLER_IDENTITIES).toContain(leader);
      const { items } = await h.api.leases.listNamespacedLease({ namespace: h.namespace });
      expect(items.map((lease) => lease.metadata!.name)).toEqual([LEASE_NAME]);
      const other = CONTROLLER_IDENTITIES.find((identity) => identity !== leader)!;

      await h.controllers[CONTROLLER_IDENTITIES.indexOf(leader)]!.stop();
      await wait(30_000, `${other} to hold the Lease`, async () => (await holder()) === other);
      await create('after-failover', { schedule: '0 0 1 1 *', command: 'true' });
      await wait(h.bounds.settleMs * 10, 'the new leader to reconcile', async () =>
        (await ready('after-failover'))?.status === 'True' ? true : null,
      );
    }, 60_000);
  });
}
